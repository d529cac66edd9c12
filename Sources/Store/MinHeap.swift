/// A binary min-heap: the smallest element first.
struct MinHeap<Element: Comparable> {
    private var storage: [Element] = []

    var first: Element? { storage.first }
    var isEmpty: Bool { storage.isEmpty }

    mutating func insert(_ element: Element) {
        storage.append(element)
        var child = storage.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { break }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    /// - Precondition: the heap is not empty.
    mutating func removeFirst() -> Element {
        let first = storage[0]
        let last = storage.removeLast()
        guard !storage.isEmpty else { return first }
        storage[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < storage.count, storage[left] < storage[smallest] { smallest = left }
            if right < storage.count, storage[right] < storage[smallest] { smallest = right }
            guard smallest != parent else { break }
            storage.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
