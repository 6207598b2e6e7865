import Foundation
import Testing

@testable import AltBenchCore

/// `ScoreSet` answers as the dictionary of scores it replaces, in name order.
@Suite("ScoreSet")
struct ScoreSetTests {
    static let scores = [
        Score(name: "quality", value: 0.5), Score.flag("first_person", true, detail: "I"), Score(name: "length", value: 40),
    ]

    @Test func looksUpSetsAndRemovesByName() {
        var set = ScoreSet(Self.scores)
        #expect(set.count == 3)
        #expect(set["quality"]?.value == 0.5)
        #expect(set["first_person"]?.isFlagged == true)
        #expect(set["missing"] == nil)
        set["brevity"] = Score(name: "anything", value: 1, passed: true)
        #expect(set["brevity"]?.name == "brevity", "stored under its key, as a dictionary would")
        set["quality"] = Score(name: "quality", value: 0.75)
        #expect(set["quality"]?.value == 0.75)
        #expect(set.count == 4)
        set["length"] = nil
        #expect(set["length"] == nil)
        #expect(set.keys == ["brevity", "first_person", "quality"])
    }

    @Test func iteratesInNameOrderWhateverTheOrderGiven() {
        let forwards = ScoreSet(Self.scores)
        let backwards = ScoreSet(Self.scores.reversed())
        #expect(forwards == backwards)
        #expect(forwards.hashValue == backwards.hashValue)
        #expect(forwards.map(\.key) == ["first_person", "length", "quality"])
        #expect(forwards.values.map(\.name) == forwards.keys)
        var names: [String] = []
        for (name, score) in forwards {
            #expect(name == score.name)
            names.append(name)
        }
        #expect(names == forwards.keys)
    }

    @Test func theFirstOfARepeatedNameWinsAndLiteralsRename() {
        let set = ScoreSet([Score(name: "a", value: 1), Score(name: "a", value: 2)])
        #expect(set.count == 1)
        #expect(set["a"]?.value == 1)
        let literal: ScoreSet = ["b": Score(name: "other", value: 3)]
        #expect(literal["b"]?.value == 3)
        #expect(literal["other"] == nil)
        #expect(ScoreSet().isEmpty && ([:] as ScoreSet).isEmpty)
    }
}
