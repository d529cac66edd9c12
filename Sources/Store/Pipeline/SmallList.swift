/// A list that keeps its first element inline and only the others in an array.
///
/// The lists a run hands from its machine to its shell and to the store's pipeline (the nodes an
/// event starts, the waiters it resumes, the runs that hold waiters until the pipeline's exit)
/// mostly hold one element: kept inline, such a list allocates nothing, where an `Array` of one
/// allocates a buffer. Elements keep the order they were added in.
@usableFromInline
struct SmallList<Element> {
    /// The first element; `nil` only when the list is empty.
    @usableFromInline var head: Element?
    /// The elements after `head`, in order.
    @usableFromInline var tail: [Element]

    @inlinable
    init() {
        (head, tail) = (nil, [])
    }

    /// A list of `element` alone.
    @inlinable
    init(_ element: Element) {
        (head, tail) = (element, [])
    }

    /// A list of `elements`, in their order.
    init(contentsOf elements: some Sequence<Element>) {
        self.init()
        append(contentsOf: elements)
    }

    @inlinable
    var isEmpty: Bool { head == nil }

    mutating func append(_ element: Element) {
        if head == nil { head = element } else { tail.append(element) }
    }

    /// Puts `element` before the others.
    mutating func prepend(_ element: Element) {
        if let first = head.take() { tail.insert(first, at: 0) }
        head = element
    }

    /// Appends `other`'s elements; an empty list takes `other` as it is (no copy of its array).
    mutating func append(contentsOf other: SmallList) {
        if isEmpty { self = other } else { for element in other { append(element) } }
    }

    mutating func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    /// Removes the element at `index` and returns it; those after it move up one place.
    mutating func remove(at index: Int) -> Element {
        guard index == 0 else { return tail.remove(at: index - 1) }
        let first = head!
        head = tail.isEmpty ? nil : tail.removeFirst()
        return first
    }

    static func += (list: inout SmallList, other: SmallList) { list.append(contentsOf: other) }

    static func += (list: inout SmallList, elements: some Sequence<Element>) { list.append(contentsOf: elements) }
}

extension SmallList: RandomAccessCollection {
    @usableFromInline typealias Index = Int

    @usableFromInline var startIndex: Int { 0 }

    @usableFromInline var endIndex: Int { head == nil ? 0 : 1 + tail.count }

    @usableFromInline subscript(index: Int) -> Element {
        index == 0 ? head! : tail[index - 1]
    }
}

extension SmallList: ExpressibleByArrayLiteral {
    @usableFromInline
    init(arrayLiteral elements: Element...) {
        self.init(contentsOf: elements)
    }
}

extension SmallList: Equatable where Element: Equatable {
    @usableFromInline
    static func == (left: SmallList, right: SmallList) -> Bool { left.elementsEqual(right) }
}

extension SmallList: Sendable where Element: Sendable {}
