import Testing

@testable import AltBenchCore

@Suite("redundant_prefix")
struct RedundantPrefixScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("Image of a cat.", "Image of"),
        .flag("An image of a cat", "An image of"),
        .flag("This image shows a cat", "This image shows"),
        .flag("The picture depicts a lake", "The picture depicts"),
        .flag("Here is an image of a dog", "Here is an image of"),
        .flag("Here\u{2019}s a picture of a cat.", "Here\u{2019}s a picture of"),
        .pass("Photo of a sunset"),  // the medium, as "A photograph of"
        .flag("A photo showing a dog", "A photo showing"),
        .flag("Graphic of a chart", "Graphic of"),
        .flag("The image shows a dog.", "The image shows"),
        .flag("The image is of a cat.", "The image is of"),
        .flag("A pic of my lunch.", "A pic of"),
        .flag("This is an image of a cat.", "This is an image of"),
        .pass("It's a photo of a cat."),
        .flag("The photo features two dogs.", "The photo features"),
        .flag("IMAGE OF A CAT", "IMAGE OF"),
        .flag("Image  of a cat", "Image  of"),
        .flag("**Image of** a cat", "Image of"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat."),
        .pass("Imagery of war"),
        // The medium can matter (erblint-github allows these).
        .pass("A photograph of a cat"),
        .pass("Screenshot of a settings page"),
        .pass("A painting of a lake"),
        .pass("An illustration of a fox"),
        // Other words, other positions.
        .pass("Image-of-the-day banner"),
        .pass("A cat looking at an image of a mouse"),
        .pass("A photo booth with two people."),
        .pass("The image quality is poor; a cat."),
        .pass("Image: a cat."),
        .pass("\u{201C}Image of the Year\u{201D} award poster"),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsAnAnnouncedImage(_ row: ScoringFlagCase) {
        expectFlag(RedundantPrefixScorer(), name: ScoreName.redundantPrefix, row)
    }

    // MARK: - Statements about the picture, and captioners

    static let statements: [ScoringFlagCase] = [
        .flag("The photograph showcases a lake at dawn.", "The photograph showcases"),
        .flag("The image is a photograph of a cat.", "The image is a photograph of"),
        .flag("This photo is a cartoon of a dog.", "This photo is a"),
        .flag("This screenshot shows a settings page.", "This screenshot shows"),
        .flag("The picture appears to be a close-up of a leaf.", "The picture appears to be a close-up of"),
        .flag("This appears to be an image of a cat.", "This appears to be an image of"),
        .flag("A picture showcasing a red car.", "A picture showcasing"),
        .flag("The image highlights a bridge at night.", "The image highlights"),
        .flag("this image depict a bus", "this image depict"),
        .flag("the image show two dogs", "the image show"),
        .flag("image shows a cat", "image shows"),
        .flag("AN IMAGE OF A CAT", "AN IMAGE OF"),
    ]

    static let notStatements: [ScoringFlagCase] = [
        // The medium named, as an accepted convention.
        .pass("A screenshot of a settings page."),
        .pass("This is a photograph of a cat."),
        .pass("This is a drawing of a house."),
        .pass("An illustration depicting a fox."),
        .pass("A photograph of a photograph on a wall."),
        // Titles and idioms.
        .pass("Picture Of The Day: a red fox."),
        .pass("The image of God in a stained-glass window."),
        .pass("The picture of health: a runner at dawn."),
        .pass("Photo highlights of the wedding day."),
        .pass("Photo display of old cameras."),
        .pass("The picture show starts at eight: a cinema front."),
        // Not the opening: a label (meta_label) or later picture talk (perception_meta).
        .pass("Alt text: The image shows a dog."),
        .pass("A cat. The image shows it asleep."),
        .pass("The photo booth at a wedding."),
    ]

    @Test(arguments: statements + notStatements)
    func flagsAStatementAboutThePicture(_ row: ScoringFlagCase) {
        expectFlag(RedundantPrefixScorer(), name: ScoreName.redundantPrefix, row)
    }
}
