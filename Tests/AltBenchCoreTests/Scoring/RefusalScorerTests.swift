import Testing

@testable import AltBenchCore

@Suite("refusal")
struct RefusalScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("I'm sorry, but I can't help with that.", "I'm sorry, but I can't help"),
        .flag("I\u{2019}m sorry, I can\u{2019}t describe this.", "I\u{2019}m sorry, I can\u{2019}t describe"),
        .flag("I am sorry, this image cannot be described.", "this image cannot be described"),
        .flag("I apologize, but I cannot process images.", "I apologize, but I cannot process"),
        // An apology alone declines nothing: it corrects or excuses.
        .pass("I apologise for the confusion."),
        .pass("I'm sorry, but I don't see any pink elephant in this image. A zoo enclosure with a person."),
        .flag("My apologies, I can't view that.", "My apologies, I can't view"),
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
        .flag("**I'm sorry**, I can't.", "I'm sorry**, I can't"),
        .flag(nil, "refusal field", refusal: "I can't help with that."),
        .flag("", "refusal field", refusal: "I can't help with that."),
        .flag(nil, "content_filter", finishReason: "content_filter"),
        .flag("A cat.", "content_filter", finishReason: "content_filter"),
    ]

    /// Refusals phrased as rules and permissions, after a leading clause or an apology sentence.
    static let widened: [ScoringFlagCase] = [
        .flag("I'm not permitted to identify people in images.", "I'm not permitted to identify"),
        .flag("I am not allowed to describe individuals.", "I am not allowed to describe"),
        .flag("I must refrain from identifying real people.", "I must refrain from identifying"),
        .flag("It is not appropriate for me to speculate about who this is.",
              "It is not appropriate for me to speculate"),
        .flag("It\u{2019}s not appropriate for me to comment on that.", "It\u{2019}s not appropriate for me to comment"),
        .flag("I am not able to provide a description.", "I am not able to provide"),
        .flag("I'm unable to help with identifying people.", "I'm unable to help"),
        .flag("I can't help with that.", "I can't help"),
        .flag("I cannot provide a description of this image.", "I cannot provide"),
        .flag("I can't share details about the people shown.", "I can't share"),
        .flag("I'm not in a position to identify this person.", "I'm not in a position to identify"),
        .flag("I don't feel comfortable identifying people in photos.",
              "I don't feel comfortable identifying"),
        .flag("As I am not allowed to provide descriptions of the individuals in this image, I can't assist.",
              "As I am not allowed to provide"),
        .flag("Since I'm not able to identify real people, I'll describe the scene instead.",
              "Since I'm not able to identify"),
        .flag("Due to privacy concerns, I cannot identify the people shown.",
              "Due to privacy concerns, I cannot identify"),
        .flag("For privacy reasons I won't describe the faces here.", "For privacy reasons I won't describe"),
        .flag("Because of the content policy, unfortunately I can't assist.",
              "Because of the content policy, unfortunately I can't assist"),
        .flag("Sorry about that. I can't identify people in photos.", "Sorry about that. I can't identify"),
        .flag("Apologies for the confusion! I'm unable to view images.",
              "Apologies for the confusion! I'm unable to view"),
        // French.
        .flag("Je suis d\u{E9}sol\u{E9}, mais je ne peux pas d\u{E9}crire cette image.",
              "Je suis d\u{E9}sol\u{E9}, mais je ne peux pas d\u{E9}crire"),
        .flag("D\u{E9}sol\u{E9}, je ne peux pas aider avec \u{E7}a.", "D\u{E9}sol\u{E9}, je ne peux pas aider"),
        .flag("Je ne suis pas en mesure d'identifier les personnes.", "Je ne suis pas en mesure d'identifier"),
        .flag("Je ne peux pas vous aider.", "Je ne peux pas vous aider"),
        .flag("DESOLE, JE NE PEUX PAS DECRIRE CETTE IMAGE.", "DESOLE, JE NE PEUX PAS DECRIRE"),
        // German.
        .flag("Es tut mir leid, aber ich kann dabei nicht helfen.", "Es tut mir leid, aber ich kann dabei nicht helfen"),
        .flag("Leider kann ich keine Personen identifizieren.", "Leider kann ich keine Personen identifizieren"),
        .flag("Ich kann keine Bilder beschreiben.", "Ich kann keine Bilder beschreiben"),
        .flag("Ich kann dieses Bild nicht sehen.", "Ich kann dieses Bild nicht sehen"),
        .flag("Ich bin nicht in der Lage, Personen zu erkennen.", "Ich bin nicht in der Lage, Personen zu erkennen"),
        // Spanish.
        .flag("Lo siento, pero no puedo ayudar con eso.", "Lo siento, pero no puedo ayudar"),
        .flag("No puedo identificar a personas.", "No puedo identificar"),
        .flag("Lamentablemente, no puedo describir esta imagen.", "Lamentablemente, no puedo describir"),
        .flag("Lo siento, no puedo ayudarte con eso.", "Lo siento, no puedo ayudarte"),
        // Portuguese.
        .flag("Desculpe, n\u{E3}o posso ajudar com isso.", "Desculpe, n\u{E3}o posso ajudar"),
        .flag("Sinto muito, mas n\u{E3}o consigo descrever a imagem.", "Sinto muito, mas n\u{E3}o consigo descrever"),
        .flag("Infelizmente, n\u{E3}o posso identificar pessoas.", "Infelizmente, n\u{E3}o posso identificar"),
        .flag("N\u{E3}o posso ajudar com isso.", "N\u{E3}o posso ajudar"),
        .flag("Nao posso ajudar com isso.", "Nao posso ajudar"),
    ]

    /// What the widened rules leave alone: signs, quotations and inabilities that describe.
    static let widenedNegatives: [ScoringFlagCase] = [
        .pass("Lo siento, cerrado."),
        .pass("Lo siento, cerrado sign on a shop door."),
        .pass("\u{201C}Lo siento, no puedo\u{201D} written on a card."),
        .pass("\u{201C}I can't believe it\u{201D} caption under a surprised cat."),
        .pass("\"I can't help with that\" printed on a mug."),
        .pass("A 'No dogs allowed' sign on a fence."),
        .pass("A sign saying no dogs allowed. I can't see any dogs."),
        .pass("Not allowed to park here, reads a sign."),
        .pass("Desculpe o transtorno, estamos em obras."),
        .pass("Desculpe o transtorno sign on a shop window."),
        .pass("Sorry, we're closed. Come back tomorrow."),
        .pass("Sorry we missed you. I can't wait to see you again, says a card."),
        .pass("As the sun sets, I can see the city lights."),
        .pass("As an AI-generated image, a cat in space."),
        .pass("Due to the low light, the details are hard to see."),
        .pass("Because it's raining. A dog can't see the ball."),
        .pass("Ich kann einen Hund sehen, der im Park spielt."),
        .pass("Ich kann sehen, dass der Hund schl\u{E4}ft."),
        .pass("No puedo vivir sin verte, dice el cartel."),
        .pass("Je ne peux pas croire ce que je vois, dit l'affiche."),
        .pass("Es tut mir leid steht auf einem Schild."),
        .pass("Je suis d\u{E9}sol\u{E9}."),
        .pass("A card reading Sinto muito on a table."),
        .pass("A poster: I'm not allowed to describe my feelings."),
        .pass("I'm not comfortable with heights, reads a mug."),
        .pass("I'm not going to lie, this cake looks amazing, says the caption."),
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

    @Test(arguments: widened + widenedNegatives)
    func flagsRulesLeadingClausesAndOtherLanguages(_ row: ScoringFlagCase) {
        expectFlag(RefusalScorer(), name: ScoreName.refusal, row)
    }
}
