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

    // MARK: - Labels beyond "Alt text:"

    static let moreLabels: [ScoringFlagCase] = [
        .flag("Note: A cat asleep on a sofa.", "Note:"),
        .flag("Summary: A cat asleep on a sofa.", "Summary:"),
        .flag("ALT TEXT - A cat asleep on a sofa.", "ALT TEXT -"),
        .flag("Alt text \u{2014} a cat asleep on a sofa.", "Alt text \u{2014}"),
        .flag("**Image description:** A cat.", "Image description:"),
        .flag("### Alt Text\nA cat asleep on a sofa.", "Alt Text"),
        .flag("Description : un chat sur un canapé.", "Description :"),
        .flag("Description\u{A0}: un chat.", "Description\u{A0}:"),
        .flag("Alternativtext: Eine Katze.", "Alternativtext:"),
        .flag("Texto alternativo: un gato en un sofá.", "Texto alternativo:"),
        .flag("Descripción: un gato.", "Descripción:"),
        .flag("Descrição: um gato no sofá.", "Descrição:"),
        .flag("Descripción de la imagen: un gato.", "Descripción de la imagen:"),
        .flag("A cat asleep on a sofa.\n\nNote: the breed is hard to tell.", "Note:"),
        .flag("A cat asleep.\n\nPlease note: the sofa is blurred.", "Please note:"),
        .flag("A cat asleep.\n\nALT TEXT: A cat asleep on a sofa.", "ALT TEXT:"),
        .flag("Alt text (125 characters): A cat asleep.", "Alt text (125 characters):"),
        .flag("Short alt text: A cat asleep.", "Short alt text:"),
        .flag("Detailed description: A cat asleep on a grey sofa.", "Detailed description:"),
        .flag("A cat.\n\n**Detailed alt text:** A cat asleep on a grey sofa.", "Detailed alt text:"),
        .flag("Assistant: A cat asleep on a sofa.", "Assistant:"),
        .flag("ASSISTANT: A cat asleep on a sofa.", "ASSISTANT:"),
        .flag("Answer: A cat asleep on a sofa.", "Answer:"),
        .flag("AI: A cat asleep on a sofa.", "AI:"),
        .flag("Option 1: A cat asleep on a sofa.", "Option 1:"),
    ]

    static let notLabels: [ScoringFlagCase] = [
        // Sign text in capitals, at the start or inside the description.
        .pass("A yellow sticky note reading NOTE: buy milk."),
        .pass("NOTE: buy milk, handwritten on a yellow sticky note."),
        .pass("A whiteboard.\nNOTE: meeting moved to 3pm."),
        // An icon's own name: a label with nothing after it.
        .pass("Telephone:"),
        .pass("Search:"),
        .pass("Caption:"),
        .pass("**Note:**"),
        // A label that names the subject, not the answer.
        .pass("Menu: pasta, salad, tiramisu."),
        .pass("Warning: wet floor sign on a tiled corridor."),
        .pass("Ingredients: flour, sugar and eggs on a wooden table."),
        // "Description", "note" and a dash as words of the description.
        .pass("Product page with the heading Description: 100% cotton."),
        .pass("The description panel of a museum exhibit."),
        .pass("Note cards spread across a desk."),
        .pass("A cat.\nA note on the fridge: buy milk."),
        .pass("Photo - Jane Doe/Reuters"),
        .pass("Summary statistics table with three columns."),
        .pass("Short film poster: a cat in a hat."),
        .pass("Answer key for a maths test."),
        .pass("ANSWER: 42, chalked on a blackboard."),
        .pass("A shop assistant at a till."),
        .pass("A chat app screenshot.\nAssistant: How can I help you today?"),
        .pass("AI generated image of a cat on a sofa."),
        .pass("Option 2 button on a vending machine."),
    ]

    @Test(arguments: moreLabels + notLabels)
    func flagsLabelsInMoreWordsAndLanguages(_ row: ScoringFlagCase) {
        expectFlag(MetaLabelScorer(), name: ScoreName.metaLabel, row)
    }

    // MARK: - Chatter openings and closings

    static let chatterOpenings: [ScoringFlagCase] = [
        .flag("Here's a breakdown of the image: a cat on a sofa.", "Here's a breakdown"),
        .flag("Here is what I see: a cat on a sofa.", "Here is what I see"),
        .flag("Here\u{2019}s what I can see in the photo: a cat.", "Here\u{2019}s what I can see"),
        .flag("Okay, let's take a look! A cat on a sofa.", "let's take a look"),
        .flag("Sure, here's a short alt text: a cat.", "here's a short alt text"),
        .flag("Certainly! A cat asleep on a sofa.", "Certainly!"),
        .flag("Of course! A cat asleep on a sofa.", "Of course!"),
        .flag("Absolutely! A cat asleep on a sofa.", "Absolutely!"),
        .flag("Great question! The image shows a cat.", "Great question!"),
        .flag("Let me describe the image. A cat on a sofa.", "Let me describe"),
        .flag("That's a close-up shot of a cat on a sofa.", "That's a"),
        .flag("That is an old photo of a harbour.", "That is an"),
        .flag("This is a description of a cat on a sofa.", "This is a description"),
        .flag("A cat on a sofa. Let me know if you need anything else.", "Let me know if"),
        .flag("A cat on a sofa.\n\nHope this helps!", "Hope this helps"),
        .flag("A cat on a sofa. Feel free to ask for a shorter version.", "Feel free to"),
        .flag("A cat on a sofa. If you need anything else, just ask.", "If you need anything"),
        .flag("A cat on a sofa. I can also make it shorter.", "I can also"),
        .flag("A cat. I'd be happy to adjust the tone.", "I'd be happy to"),
        .flag("Bien sûr ! Un chat sur un canapé.", "Bien sûr !"),
        .flag("Voici une description de l'image : un chat.", "Voici une description"),
        .flag("Hier ist eine Beschreibung: eine Katze.", "Hier ist eine Beschreibung"),
        .flag("Aquí tienes una descripción: un gato.", "Aquí tienes una descripción"),
        .flag("Aqui está uma descrição: um gato.", "Aqui está uma descrição"),
        .flag("Un chat sur un canapé. N'hésitez pas si besoin.", "N'hésitez pas"),
        .flag("Eine Katze. Ich hoffe, das hilft!", "Ich hoffe"),
        .flag("Un gato en un sofá. Espero que te sirva.", "Espero que te sirva"),
        .flag("Um gato no sofá. Espero que isso ajude.", "Espero que isso"),
        .flag("Here are a few options: 1. A cat asleep.", "Here are a few options"),
        .flag("Here you go! A cat on a sofa.", "Here you go"),
        .flag("Got it! A cat on a sofa.", "Got it!"),
        .flag("A cat on a sofa. I hope you find this useful.", "I hope"),
        .flag("A cat on a sofa. Want me to make it shorter?", "Want me to"),
        .flag("A cat on a sofa. Shall I add more detail?", "Shall I"),
        .flag("A cat on a sofa. Is this what you were looking for?", "Is this what you"),
    ]

    static let notChatter: [ScoringFlagCase] = [
        .pass("Here is an alternative view of the old bridge."),
        .pass("Here is what remains of the old mill."),
        .pass("Here's a look at the new stadium from the north stand."),
        .pass("That's Amore neon sign in a restaurant window."),
        .pass("THAT'S A WRAP banner over a film set."),
        .pass("Certainly"),
        .pass("Absolutely Fabulous DVD cover."),
        .pass("Great question mark sculpture in a park."),
        .pass("A cat on a sofa under a Let Me Describe poster."),
        .pass("A mug printed \"Hope this helps\" on a desk."),
        .pass("A banner saying feel free to ask over a help desk."),
        .pass("A description card beside a painting: Oil on canvas, 1890."),
        .pass("Well-lit kitchen with a cat on the counter."),
        .pass("Should I Stay or Should I Go single cover."),
        .pass("Shall I Compare Thee printed on a tote bag."),
        .pass("A card on a cat bed; the card says I hope you sleep well."),
        .pass("Here it is, the old bridge at dusk."),
        .pass("Screenshot of a tweet by @jane: Let me know what you think of the new logo!"),
        .pass("Flowchart: if you need help, ask a librarian."),
        .pass("Voici le chat de ma voisine sur un canapé."),
        .pass("Natürlich Bio label on a carton of milk."),
        .pass("Hier ist alles aus Holz: eine Hütte im Wald."),
    ]

    @Test(arguments: chatterOpenings + notChatter)
    func flagsChatterOpeningsAndClosings(_ row: ScoringFlagCase) {
        expectFlag(MetaLabelScorer(), name: ScoreName.metaLabel, row)
    }
}
