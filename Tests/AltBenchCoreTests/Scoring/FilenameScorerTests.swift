import Testing

@testable import AltBenchCore

@Suite("filename")
struct FilenameScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("cat.png", "cat.png"),
        .flag("IMG_1234.JPG", "IMG_1234.JPG"),
        .flag("A cat on a sofa, photo.jpeg.", "photo.jpeg"),
        .flag("my-photo.final.webp showing a lake", "my-photo.final.webp"),
        .flag("Logo (company_logo.SVG)", "company_logo.SVG"),
        .flag("See https://example.com/images/cat.gif for more.", "cat.gif"),
        .flag("Holiday snap 2023.heic", "2023.heic"),
        .flag("IMG_1234", "IMG_1234"),
        .flag("A beach. IMG-20230101-WA0001", "IMG-20230101-WA0001"),
        .flag("DSC_0001 a mountain lake", "DSC_0001"),
        .flag("DSCN1234", "DSCN1234"),
        .flag("DSC01234: a red car", "DSC01234"),
        .flag("PXL_20230101_123456789 sunset", "PXL_20230101_123456789"),
        .flag("Screenshot_20230101-101500 of a chat", "Screenshot_20230101-101500"),
        .flag("Screen Shot 2023-01-01 at 10.00.00", "Screen Shot 2023-01-01"),
        .flag("Screenshot 2023-01-01 at 10.00.00.png", "Screenshot 2023-01-01"),
        .flag("WhatsApp Image 2023-01-01 at 10.00.00", "WhatsApp Image 2023-01-01"),
        .flag("Eine Katze auf dem Sofa (katze_sofa.tiff)", "katze_sofa.tiff"),
        .flag("A file named IMG_0042.jpg on a desktop", "IMG_0042.jpg"),
        .flag("Фото кошки — кошка.jpg", "кошка.jpg"),
        .flag("Un café—café_crème.PNG", "café_crème.PNG"),
        .flag("A cat, \u{201C}sleepy\u{201D}, file cat_1.gif", "cat_1.gif"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat asleep on a sofa."),
        .pass("A laptop showing the Node.js logo."),
        .pass("A changelog for version 1.2 on a screen."),
        .pass("A browser open at example.com."),
        .pass("A PNG icon of a house."),
        .pass("JPEG artifacts blur the sky."),
        .pass("A meme from imgur."),
        .pass("A .png file icon on a desktop."),
        .pass("IMG"),
        .pass("The letters DSC on a banner."),
        .pass("A Sony DSC-RX100 camera on a table."),
        .pass("A screenshot of a chat from 2023."),
        .pass("A cat.Then a dog."),
        .pass("An archive named photos.png.zip"),
        .pass("A JPG, GIF or PNG badge."),
        .pass("A sign reading PNG ONLY."),
        // Quoted: a transcription of a file listing.
        .pass("A folder window listing \u{201C}IMG_1234.jpg\u{201D} and \u{201C}cat.png\u{201D}."),
        .pass("Un chat. C'est joli... gif animé."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsFileNames(_ row: ScoringFlagCase) {
        expectFlag(FilenameScorer(), name: ScoreName.filename, row)
    }
}
