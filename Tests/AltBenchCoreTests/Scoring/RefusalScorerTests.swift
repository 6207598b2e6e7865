import Testing

@testable import AltBenchCore

@Suite("refusal")
struct RefusalScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("I'm sorry, but I can't help with that.", "I'm sorry"),
        .flag("I\u{2019}m sorry, I can\u{2019}t describe this.", "I\u{2019}m sorry"),
        .flag("I am sorry, this image cannot be described.", "I am sorry"),
        .flag("I apologize, but I cannot process images.", "I apologize"),
        .flag("I apologise for the confusion.", "I apologise"),
        .flag("My apologies, I can't view that.", "My apologies"),
        .flag("As an AI, I cannot see images.", "As an AI"),
        .flag("As an AI language model, I do not have eyes.", "As an AI"),
        .flag("I can't describe this image.", "I can't describe"),
        .flag("I can\u{2019}t actually see images.", "I can\u{2019}t actually see"),
        .flag("I cannot identify people in images.", "I cannot identify"),
        .flag("I am unable to view images.", "I am unable to view"),
        .flag("I'm unable to see the image.", "I'm unable to see"),
        .flag("I'm not able to help with that request.", "I'm not able to help"),
        .flag("I won't be able to describe this.", "I won't be able to describe"),
        .flag("Sorry, but I can't help with that.", "Sorry, but I can't help"),
        .flag("Sorry, I can't assist with that request.", "Sorry, I can't assist"),
        .flag("Sorry. I cannot see images.", "Sorry. I cannot see"),
        .flag("Unfortunately, I am not able to view images.", "Unfortunately, I am not able to view"),
        .flag("I'm afraid I can't do that.", "I'm afraid I can't do"),
        .flag("**I'm sorry**, I can't.", "I'm sorry"),
        .flag(nil, "refusal field", refusal: "I can't help with that."),
        .flag("", "refusal field", refusal: "I can't help with that."),
        .flag(nil, "content_filter", finishReason: "content_filter"),
        .flag("A cat.", "content_filter", finishReason: "content_filter"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat."),
        .pass("A cat.", finishReason: "stop"),
        .pass("A cat with", finishReason: "length"),
        .pass("A cat.", refusal: "   "),
        // A sign first or in quotes is text in the image, not the model apologising.
        .pass("A shop sign reading \u{201C}Sorry, we're closed\u{201D}."),
        .pass("Sorry, we're closed sign on a door."),
        .pass("\u{201C}Sorry, we're closed\u{201D} on a shop door."),
        .pass("\"I'm sorry\" written on a card."),
        .pass("Apologies for the mess sign on a fence."),
        .pass("Sorry."),
        // Not at the start.
        .pass("A person saying I can't believe it on a poster."),
        .pass("A card that says I'm sorry."),
        // Inability to do something other than see, describe or help.
        .pass("I can't believe it's not butter tub on a table."),
        .pass("I can't read the small print, but it's a menu."),
        .pass("I'm afraid of spiders, reads a T-shirt."),
        .pass("As an AI-generated image, a cat in space."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsRefusals(_ row: ScoringFlagCase) {
        expectFlag(RefusalScorer(), name: ScoreName.refusal, row)
    }
}
