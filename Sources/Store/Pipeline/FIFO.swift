/// A first-in first-out ring buffer that reuses its storage.
///
/// The store's pending queue and a run's ready queue push and pop on every action; an `Array`
/// with `removeFirst()` would be O(n) a pop, and a fresh array a burst would allocate each time.
@usableFromInline
struct FIFO<Element> {
    @usableFromInline var slots: ContiguousArray<Element?> = []
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    @usableFromInline
    init() {}

    @inlinable
    var isEmpty: Bool { count == 0 }

    @inlinable
    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        var tail = head + count
        if tail >= slots.count { tail -= slots.count }
        slots[tail] = element
        count += 1
    }

    @inlinable
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head += 1
        if head == slots.count { head = 0 }
        count -= 1
        return element
    }

    @inlinable
    mutating func removeAll() {
        while popFirst() != nil {}
        head = 0
    }

    @usableFromInline
    mutating func grow() {
        var larger = ContiguousArray<Element?>(repeating: nil, count: Swift.max(8, slots.count * 2))
        for offset in 0..<count {
            var index = head + offset
            if index >= slots.count { index -= slots.count }
            larger[offset] = slots[index].take()
        }
        slots = larger
        head = 0
    }
}
