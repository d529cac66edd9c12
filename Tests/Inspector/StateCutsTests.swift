import Testing

@testable import OresRedux

/// The cut values a generated test counts edit by edit are the ones a walk of the state finds.
@Suite("Inspector generated test: cut values counted edit by edit")
struct StateCutsTests {
    static let cutString = InspectorValue.string("abc", truncatedFrom: 10)
    static let leaf = InspectorValue.leaf(type: "Int", text: "1")

    static func state(_ list: [InspectorValue], _ tags: [InspectorValue.DictionaryEntry], _ flag: InspectorValue)
        -> InspectorValue
    {
        .structure(
            type: "S",
            fields: [
                .init(label: "list", value: .collection(type: "Array<String>", elements: list)),
                .init(label: "tags", value: .dictionary(type: "Dictionary<String, Int>", entries: tags)),
                .init(label: "flag", value: flag),
            ])
    }

    @Test func countsFollowReplacesSplicesAndAWholeNewState() {
        var state = Self.state([Self.leaf, Self.cutString], [.init(key: Self.cutString, value: Self.leaf)], Self.leaf)
        var cuts = StateCuts(state)
        #expect(cuts.inPart(0) == .length && cuts.inPart(1) == .length && cuts.inPart(2) == [])

        // The cut element goes; the dictionary's cut key goes and a key cut in depth comes.
        let splices = InspectorPatch(edits: [
            .splice(path: [0], hunks: [.init(at: 1, removing: 1, inserting: [], insertingEntries: [])]),
            .splice(
                path: [1],
                hunks: [
                    .init(
                        at: 0, removing: 1, inserting: [],
                        insertingEntries: [.init(key: .truncated(type: "K"), value: Self.leaf)])
                ]),
        ])
        cuts.apply(splices, to: &state)
        #expect(cuts.inPart(0) == [] && cuts.inPart(1) == .depth && cuts.inWhole == .depth)

        let replaces = InspectorPatch(edits: [
            .replace(path: [2], value: .truncated(type: "Flag")),
            .replace(path: [0, 0], value: Self.cutString),
            .replace(path: [0, 7], value: Self.cutString),  // leads nowhere: changes nothing
        ])
        cuts.apply(replaces, to: &state)
        #expect(cuts.inPart(0) == .length && cuts.inPart(1) == .depth && cuts.inPart(2) == .depth)
        let recounted = StateCuts(state)
        #expect(cuts.inWhole == [.depth, .length] && recounted.inWhole == cuts.inWhole)
        #expect((0..<3).allSatisfy { recounted.inPart($0) == cuts.inPart($0) })

        cuts.apply(
            InspectorPatch(edits: [.replace(path: [], value: Self.state([Self.leaf], [], Self.leaf))]), to: &state)
        #expect(cuts.inWhole == [] && cuts.inPart(0) == [] && cuts.inPart(2) == [])
    }
}
