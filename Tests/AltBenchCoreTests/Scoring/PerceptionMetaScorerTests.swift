import Testing

@testable import AltBenchCore

@Suite("perception_meta")
struct PerceptionMetaScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("I can see a cat on a sofa.", "I can see"),
        .flag("A lake where we see two swans.", "we see"),
        .flag("We can see a lake at dusk.", "We can see"),
        .flag("As you can see, the cat is asleep.", "you can see"),
        .flag("A tower can be seen in the distance.", "can be seen"),
        .flag("Mountains could be seen behind the lake.", "could be seen"),
        .flag("Two swans can also be seen.", "can also be seen"),
        .flag("A red bus is visible in the image.", "in the image"),
        .flag("Two dogs are visible in this photo.", "in this photo"),
        .flag("In this image, a cat sleeps on a sofa.", "In this image"),
        .flag("In the picture, a man rides a bike.", "In the picture"),
        .flag("A cat. The image shows it asleep on a sofa.", "The image shows"),
        .flag("A sunny beach; this photo captures the waves.", "this photo captures"),
        .flag("A dog in the photograph, running.", "in the photograph"),
        .flag("I see a red bicycle.", "I see"),
        .flag("We are looking at a busy street.", "We are looking at"),
        .flag("**In this image**, a cat.", "In this image"),
        .flag("Un chat. In the image, a cat sleeps.", "In the image"),
        // The sign is reported; the model speaks again after the quotation.
        .flag("A sign reads \u{201C}Open\u{201D} and we can see a queue.", "we can see"),
        .flag("A cat.\nIn this picture it sleeps.", "In this picture"),
        // The earlier "Photo" is a reported title, so "the photo" is the image itself.
        .flag("A poster titled Photo Day. In the photo, a girl smiles.", "In the photo"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat asleep on a sofa."),
        // The opening belongs to redundant_prefix.
        .pass("The image shows a dog."),
        .pass("This picture depicts a lake."),
        // Reported and quoted text.
        .pass("A sign reading YOU CAN SEE THE SEA."),
        .pass("A sign reading you can see the sea from here."),
        .pass("A T-shirt with \u{201C}we see you\u{201D} printed on it."),
        .pass("A poster titled \u{201C}In This Picture\u{201D} on a wall."),
        .pass("A poster titled In This Picture on a wall."),
        .pass("A tweet reads: \"In the photo I look tired\"."),
        // All-caps sign text and capitalised titles not announced by a trigger word.
        .pass("A billboard: WE SEE YOU. Cars pass below."),
        .pass("Album cover of We Can See by a band."),
        // Not about the picture.
        .pass("A tower visible in the background."),
        .pass("A city seen from above."),
        .pass("Children on a seesaw."),
        .pass("A framed photo on a wall; in the photo, a couple smiles."),
        .pass("A woman holds a photograph. The photograph shows a baby."),
        .pass("A painting in the picture frame shop."),
        .pass("A cat in the picture window."),
        .pass("Two girls pulling faces in the photo booth."),
        .pass("A mosaic of a saint made in the image of Christ."),
        .pass("Sea views. Seeing-eye dog at work."),
        .pass("Eine Katze, die man gut sehen kann."),
        .pass("Photo booth strip with four frames."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsTalkAboutSeeingInTheModelsOwnVoice(_ row: ScoringFlagCase) {
        expectFlag(PerceptionMetaScorer(), name: ScoreName.perceptionMeta, row)
    }

    // MARK: - The picture named in other words and places

    static let pictureTalk: [ScoringFlagCase] = [
        .flag("A red bus on a street. The image is a photograph of a city.", "The image is a photograph of"),
        .flag("A cat on a rug. The photograph showcases its fur.", "The photograph showcases"),
        .flag("A grinning dog. This photo is a cartoon from a comic.", "This photo is a"),
        .flag("A busy road; the picture shows three cars.", "the picture shows"),
        .flag("A settings page. This screenshot shows the Wi-Fi toggle.", "This screenshot shows"),
        .flag("A fox. This illustration depicts it in winter.", "This illustration depicts"),
        .flag("A bowl of fruit. The illustration features apples and pears.", "The illustration features"),
        // An artwork named as the subject is described, not announced.
        .pass("A bowl of fruit. The painting features apples and pears."),
        .flag("A man on a bike. The image highlights his helmet.", "The image highlights"),
        .flag("A lake at dawn. The picture appears to be a close-up of reeds.", "The picture appears to be a close-up of"),
        .flag("A cat on a sofa. The image appears to show a tabby.", "The image appears to show"),
        .flag("A cat on a sofa. The image is of a tabby.", "The image is of"),
        // After an opening label the statement is the model's again.
        .flag("Alt text: The image shows a dog on a beach.", "The image shows"),
        .flag("**Alt text:** The image shows a dog.", "The image shows"),
        .flag("Image description: this photo captures a storm.", "this photo captures"),
        // Captioners: lowercase, bare verbs.
        .flag("Caption: this image depict a bus", "this image depict"),
        .flag("two dogs on grass, the image show two dogs playing", "the image show"),
    ]

    static let notPictureTalk: [ScoringFlagCase] = [
        // Opening statements belong to redundant_prefix.
        .pass("The photograph showcases a lake at dawn."),
        .pass("The image is a photograph of a city."),
        .pass("this image depict a bus"),
        // A picture in the picture.
        .pass("A woman holds a painting; the painting shows a ship."),
        .pass("A child's drawing on a fridge; that drawing shows a house."),
        .pass("A phone open on a photo app; the photo shows a dog."),
        .pass("A photograph of a photograph on a wall."),
        // Reported text, sign text and titles.
        .pass("A sign reading THE IMAGE SHOWS hangs above the door."),
        .pass("A sign reading the image shows nothing, on a fence."),
        .pass("A tweet reads: the image shows my cat."),
        .pass("A poster with The Picture Shows Everything in gold letters."),
        .pass("A T-shirt printed with \u{201C}this photo is a lie\u{201D}."),
        // Compounds, idioms and the medium named.
        .pass("An old picture frame on a shelf."),
        .pass("A drawing room with a piano."),
        .pass("A queue of people with tickets for the picture show."),
        .pass("A magazine spread; the photo highlights of the week on the left page."),
        .pass("A table at a fair; the photo display is lit by lamps."),
        .pass("Stained glass made in the image of God."),
        .pass("A screenshot of a settings page."),
        .pass("Label: a jar of honey. The label shows a bee."),
        .pass("Alt text: a dog on a beach."),
    ]

    @Test(arguments: pictureTalk + notPictureTalk)
    func flagsThePictureNamedInOtherWordsAndPlaces(_ row: ScoringFlagCase) {
        expectFlag(PerceptionMetaScorer(), name: ScoreName.perceptionMeta, row)
    }
}
