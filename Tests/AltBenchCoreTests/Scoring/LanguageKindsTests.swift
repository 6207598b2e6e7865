import Testing

@testable import AltBenchCore

/// The detectors' kinds in each language of ``LanguagePhrases``, with a passing text beside
/// each: the unit tests of the rules the validity benchmark measures on published text.
@Suite("detector kinds per language")
struct LanguageKindsTests {
    // MARK: - Picture talk (perception_meta or redundant_prefix)

    static let pictureTalk: [ScoringFlagCase] = [
        // en: the picture named anywhere, handled, announced by an opening noun phrase
        .flag("A dog sits by a lake. In the foreground of the image, reeds sway."),
        .flag("A cat on a sofa; the photo was taken at dusk."),
        .flag("I'm unable to view images, but a cat is likely."),
        .flag("A close-up outdoor shot shows a thistle against the sky."),
        .flag("In the image, a man rides a bike."),
        .flag("The Firefox settings menu. The screenshot is highlighting the New Integer entry."),
        .flag("Wunderhübsches Bild der Virchowstraße mit einer Kirche."),
        .pass("A photograph of a cat on a sofa."),
        .pass("Photo of a sunset over the sea."),
        .pass("A woman holds a photo; the photo shows a baby."),
        .pass("Screenshot of the settings with the Photo option crossed out."),
        .pass("A bowl of fruit. The painting features apples and pears."),
        // de
        .flag("Das Bild zeigt einen Hund im Gras."),
        .flag("Im Bild ist ein Hund zu sehen."),
        .pass("Foto von einem Hund im Gras."),
        // fr
        .flag("Sur cette image, un chat dort."),
        .flag("Un chat dort. On voit une fenêtre derrière."),
        .pass("Photo d'un chat endormi sur un canapé."),
        // es
        .flag("La imagen muestra un perro en la playa."),
        .flag("Un perro corre. En la imagen se ven olas."),
        .pass("Foto de un perro en la playa."),
        // pt
        .flag("Na imagem, um cão corre na praia."),
        .pass("Fotografia de um cão na praia."),
        // nl
        .flag("Op de foto staat een hond op het strand."),
        .flag("Hier zien we een hond op het strand."),
        .pass("Een foto van een hond op het strand."),
        // it
        .flag("Nell'immagine un cane corre sulla spiaggia."),
        .pass("Foto di un cane sulla spiaggia."),
        // ja, zh, ko
        .flag("この画像には、公園で遊ぶ子どもが写っています。"),
        .flag("图片中有一只猫在沙发上睡觉。"),
        .flag("이 이미지에는 고양이가 있습니다."),
        .pass("公園で遊ぶ子どもたち"),
        .pass("一只猫在沙发上睡觉。"),
    ]

    @Test(arguments: pictureTalk)
    func pictureTalkInEveryLanguage(_ row: ScoringFlagCase) {
        let input = row.input
        let flagged = [PerceptionMetaScorer().score(input), RedundantPrefixScorer().score(input)]
            .flatMap { $0 }.contains(where: \.isFlagged)
        #expect(flagged == row.flagged)
    }

    // MARK: - Refusals

    static let refusals: [ScoringFlagCase] = [
        .flag("The image shows a crowd at a rally. However, I can't identify the people in it."),
        .flag("I'm happy to help, but I don't see an image attached."),
        .flag("There is no image attached to your message."),
        .flag("Unfortunately, I'm a large language model and can't view pictures."),
        .flag("While I can't identify real people, the photo shows a man at a podium."),
        .flag("Mi dispiace, ma non posso descrivere questa immagine."),
        .flag("Sorry, ik kan deze afbeelding niet beschrijven."),
        .flag("К сожалению, не могу посмотреть фотографию."),
        .flag("Sorry, I couldn't process this image."),
        .flag("Lo siento, no pude procesar esta imagen."),
        .flag("Désolé, je n'ai pas pu traiter cette image."),
        .flag("The picture is not suitable for me to provide an answer."),
        .flag("申し訳ありませんが、この人物を特定することはできません。"),
        .flag("抱歉，我无法识别图片中的人物。"),
        .pass("A man in a suit at a podium. I can't help but notice the flags behind him."),
        .pass("A dog on a beach. I can't see its face, which is turned away."),
        .pass("I'm sorry, but I don't see any pink elephant here. A zoo enclosure with a keeper."),
        .pass("申し訳ありませんが、この画像には人物がいないようです。山水画です。"),
        .pass("A sign reads: Sorry, we're closed."),
        .pass("Ich kann einen Hund im Gras sehen."),
    ]

    @Test(arguments: refusals)
    func refusalsInEveryLanguage(_ row: ScoringFlagCase) {
        expectFlag(RefusalScorer(), name: ScoreName.refusal, row)
    }

    // MARK: - Meta labels and chatter

    static let metaLabels: [ScoringFlagCase] = [
        .flag("Based on the details, here is a more detailed description of the image:\nA cat on a sofa."),
        .flag("[Image description: a cat on a sofa]"),
        .flag("Title: Seafront monument\nDescription: A white column by the sea."),
        .flag("A cat on a sofa. How can I assist you today?"),
        .flag("Claro! Um gato dorme no sofá."),
        .flag("Audiodescrição: fotografia colorida de um homem em frente a uma porta."),
        .flag("Un gatto dorme sul divano. Fammi sapere se serve altro."),
        .flag("以下是这张图片的描述：一只猫在沙发上睡觉。"),
        .flag("猫がソファで寝ています。他に何かお手伝いできることはありますか？"),
        .pass("To make it at home, you will need the following ingredients: bread, ham and cheese."),
        .pass("A poster with the caption: Let me know what you think."),
        .pass("Menu: pasta, salad, soup."),
        .pass("一只猫在沙发上睡觉。"),
    ]

    @Test(arguments: metaLabels)
    func metaLabelsInEveryLanguage(_ row: ScoringFlagCase) {
        expectFlag(MetaLabelScorer(), name: ScoreName.metaLabel, row)
    }

    // MARK: - Truncation, text alone

    static let truncations: [ScoringFlagCase] = [
        .flag("A cat sits on a sofa. Its fur is fluffy and appears"),
        .flag("A cat sits on a sofa. The cat'"),
        .flag("1. A red car.\n2. A blue bus.\n3. A green tr"),
        .flag("a bald bald bald bald bald"),
        .flag("A jet ski on a lake. It is black and green, and it..."),
        .flag("Ein Hund liegt auf der Wiese neben einer"),
        .flag("Un chien court sur la plage avec"),
        .flag("猫がソファの上で、"),
        .flag("一只可爱的"),
        .pass("A cat sits on a sofa. The light is soft, creating a serene moment"),
        .pass("Ein Clown pumpt einen Ballon auf"),
        .pass("Hier weet ik geen goede omschrijving voor"),
        .pass("- A red car\n- A blue bus\n- A green tram"),
        .pass("Keywords: seafront, monument, Suffolk, UK, gbr"),
        .pass("公園で遊ぶ子どもたち"),
    ]

    @Test(arguments: truncations)
    func truncationInEveryLanguage(_ row: ScoringFlagCase) {
        expectFlag(TruncationScorer(), name: ScoreName.truncated, row)
    }

    // MARK: - First person

    static let firstPerson: [ScoringFlagCase] = [
        .flag("Ich sehe einen Hund im Gras."),
        .flag("Nous voyons un chat sur le canapé."),
        .flag("In questa scena vediamo un aquilone."),
        .flag("Veo un perro en la playa."),
        .flag("Een man slaapt met mijn hoofd op tafel."),
        .flag("私は夕暮れの時間を選びます。"),
        .flag("我看到一只猫。"),
        .pass("Een hond die je aankijkt op het strand."),
        .pass("A car charger. Example from https://www.belkin.com/us/products/."),
        .pass("Il gatto dorme, ma il cane gioca."),
        .pass("Una camiseta con el texto «Yo ♥ NY»."),
        .pass("Un chat dort sur le canapé."),
    ]

    @Test(arguments: firstPerson)
    func firstPersonInEveryLanguage(_ row: ScoringFlagCase) {
        expectFlag(FirstPersonScorer(), name: ScoreName.firstPerson, row)
    }

    /// A transcription after an announcing line is not the model's voice: its "we" is the page's.
    @Test func transcribedTextIsNotTheOwnVoice() {
        let text = "The text in the image is as follows:\n\nWe ship our framework to everyone.\n\nThe image is a screenshot."
        #expect(FirstPersonScorer().score(ScoringInput(content: text)).first?.isFlagged == false)
        let code = "A chart.\n\n```python\nour_data = [1, 2]\n```"
        #expect(FirstPersonScorer().score(ScoringInput(content: code)).first?.isFlagged == false)
    }
}
