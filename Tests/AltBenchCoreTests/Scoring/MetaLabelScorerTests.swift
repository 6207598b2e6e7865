import Testing

@testable import AltBenchCore

@Suite("meta_label")
struct MetaLabelScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("Alt text: A cat asleep on a sofa.", "Alt text:"),
        .flag("Alt-text: A cat asleep on a sofa.", "Alt-text:"),
        .flag("Alt: a cat.", "Alt:"),
        .flag("ALT: A CAT.", "ALT:"),
        .flag("Image description: A cat.", "Image description:"),
        .flag("Description: A red dress on a hanger.", "Description:"),
        .flag("Caption: Sunset over the bay.", "Caption:"),
        .flag("Image: a cat on a sofa.", "Image:"),
        .flag("Photo: Jane Doe/Reuters", "Photo:"),
        .flag("Picture: a lake.", "Picture:"),
        .flag("Photographer: Ansel Adams", "Photographer:"),
        .flag("**Alt text:** A cat.", "Alt text:"),
        .flag("**Alt text**: A cat.", "Alt text:"),
        .flag("Alt text for the image: A cat.", "Alt text for the image:"),
        .flag("Texte alternatif : un chat sur un canapé.", "Texte alternatif :"),
        .flag("Bildbeschreibung: Eine Katze auf dem Sofa.", "Bildbeschreibung:"),
        .flag("**Alt text**\nA cat asleep on a sofa.", "Alt text"),
        .flag("Sure! Here is a cat.\n\nAlt text: A cat asleep.", "Sure!"),
        .flag("A cat asleep.\n\nAlt text: A cat asleep on a sofa.", "Alt text:"),
        .flag("Here is the alt text: A cat on a sofa.", "Here is the alt text"),
        .flag("Here's an alt text for your image: a cat.", "Here's an alt text"),
        .flag("Here is a description of the image: a cat.", "Here is a description"),
        .flag("Sure, here is a concise, descriptive caption: a cat.", "here is a concise, descriptive caption"),
        .flag("A cat asleep on a sofa. I hope this helps!", "I hope this helps"),
        .flag("A cat on a sofa. Hope this helps.", "Hope this helps"),
        .flag("A cat on a sofa. Let me know if you need more detail.", "Let me know if"),
        .flag("A cat on a sofa.\n\nFeel free to adjust it.", "Feel free to"),
        .flag("A cat. Is there anything else you need?", "Is there anything else"),
        .flag("A cat. Would you like me to make it shorter?", "Would you like me to"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat asleep on a sofa."),
        // A label word without a colon is a noun phrase.
        .pass("Description of a red dress on a hanger."),
        .pass("Photo booth strip with four frames."),
        .pass("Image"),
        .pass("Caption contest entry: a cat in a hat."),
        // Not at the start.
        .pass("A poster with the caption: Hello."),
        .pass("A meme.\nCaption: When the coffee kicks in."),
        .pass("A magazine page.\nPhoto: Jane Doe."),
        // Reported, quoted and shouted text.
        .pass("A sign reading Let me know if you need help."),
        .pass("A note saying \u{201C}Hope this helps!\u{201D} on a fridge."),
        .pass("A poster: FEEL FREE TO ASK."),
        .pass("A tweet: \"Let me know if you're coming!\" with a photo of a cake."),
        .pass("Album cover of Let Me Know by a band."),
        // Here is/here are without presenting an alt text.
        .pass("Here is the entrance to the old mill."),
        .pass("Here are two cats on a caption-worthy sofa."),
        .pass("Here is a cat with a caption."),
        // Other languages and other openings.
        .pass("Alte Frau mit Hund im Park."),
        .pass("Surely the tallest tower in town."),
        .pass("Sure Start nursery sign on a brick wall."),
        .pass("Altar of a church with candles."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsLabelsAndChatter(_ row: ScoringFlagCase) {
        expectFlag(MetaLabelScorer(), name: ScoreName.metaLabel, row)
    }

    // MARK: - Shortcuts against the long way

    @Test func agreesWithEveryCheckOnEveryAnswer() {
        var random = RandomAnswers(seed: 11)
        for k in 0..<4000 {
            let input = ScoringInput(content: random.answer(simple: k % 2 == 0))
            #expect(
                MetaLabelScorer.evidence(in: input) == MetaLabelScorer.evidenceByOwnVoice(in: input),
                "\(input.text.debugDescription)")
        }
    }

    @Test func findsLineBreaksAsTheByteScanDoes() {
        var random = RandomAnswers(seed: 12)
        for _ in 0..<3000 {
            var text = random.answer()
            text.withUTF8 { bytes in
                #expect(MetaLabelScorer.hasLineBreak(bytes) == MetaLabelScorer.candidates(bytes).lineBreak)
                #expect(
                    MetaLabelScorer.colonNearStart(bytes) == MetaLabelScorer.candidates(bytes).colonNearStart)
            }
        }
    }

    @Test func readsLabelsFromTheBytesAsFromTheCharacters() {
        var random = RandomAnswers(seed: 13)
        var decided = 0
        for k in 0..<4000 {
            let label = random.pick([
                "Alt text", "**Alt text**", "Image description", "Alt text for the image", "Caption",
            ])
            let colon = random.pick([":", " :", "**:", "\n", ""])
            let input = ScoringInput(content: label + colon + random.answer(simple: k % 2 == 0))
            var text = input.text
            let bytes = text.withUTF8 { bytes in
                MetaLabelScorer.asciiLabel(
                    at: 0, labels: MetaLabelScorer.openingLabelIndex, words: input.words, bytes: bytes,
                    reach: MetaLabelScorer.asciiReach(bytes))
            }
            guard let bytes, !input.words.isEmpty else { continue }
            decided += 1
            #expect(
                bytes == MetaLabelScorer.label(
                    at: 0, labels: MetaLabelScorer.allOpeningLabels, words: input.words, chars: input.characters),
                "\(input.text.debugDescription)")
        }
        #expect(decided > 2000)
    }
}
