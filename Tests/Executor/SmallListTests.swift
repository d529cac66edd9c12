import Testing

@testable import OresRedux

/// The list a run's steps hand nodes and waiters in: its first element inline, the others after
/// it, always in the order they were added.
@Suite("Small list")
struct SmallListTests {
    @Test("an empty list has no element")
    func empty() {
        let list = SmallList<Int>()
        #expect(list.isEmpty)
        #expect(list.count == 0)
        #expect(Array(list) == [])
        #expect(list == [])
    }

    @Test("one element is kept inline, and the list is not empty")
    func one() {
        var list = SmallList<Int>()
        list.append(7)
        #expect(!list.isEmpty)
        #expect(list.count == 1)
        #expect(list[0] == 7)
        #expect(list.tail.isEmpty, "the first element needs no array")
        #expect(list == SmallList(7))
    }

    @Test("many elements keep the order they were added in")
    func many() {
        var list = SmallList<Int>()
        for element in [3, 1, 4, 1, 5] { list.append(element) }
        #expect(list.count == 5)
        #expect(Array(list) == [3, 1, 4, 1, 5])
        #expect(list == [3, 1, 4, 1, 5])
        #expect(list != [3, 1, 4, 1])
    }

    @Test("prepend puts an element first, before every other")
    func prepend() {
        var list = SmallList<Int>()
        list.prepend(2)
        #expect(list == [2])
        list.append(3)
        list.prepend(1)
        #expect(Array(list) == [1, 2, 3])
    }

    @Test("appending a list to an empty one takes it as it is; to another, after its elements")
    func appendList() {
        var list = SmallList<Int>()
        list += SmallList<Int>()
        #expect(list.isEmpty)
        list += [1, 2] as SmallList
        #expect(list == [1, 2])
        list += [3, 4] as SmallList
        list += [5, 6]  // an array
        #expect(Array(list) == [1, 2, 3, 4, 5, 6])
        #expect(SmallList(contentsOf: 1...3) == [1, 2, 3])
    }

    @Test("remove(at:) takes out one element and keeps the others in order")
    func remove() {
        var list: SmallList = [1, 2, 3, 4]
        #expect(list.remove(at: 2) == 3)
        #expect(list == [1, 2, 4])
        #expect(list.remove(at: 0) == 1, "the first: the next one moves inline")
        #expect(list == [2, 4])
        #expect(list.remove(at: 1) == 4)
        #expect(list.remove(at: 0) == 2)
        #expect(list.isEmpty)
        list.append(9)
        #expect(list == [9], "an emptied list fills again from its first element")
    }
}
