import Foundation

/// The detectors' phrase tables for languages beyond English (and the longer English tables of
/// `meta_label` and `truncated`, kept here so each scorer's file holds its rule), and the two
/// ways they are matched: word phrases for languages written with spaces (matched word by word, lowercased
/// and without accents, so "Über" matches "uber"), and character sequences for Chinese,
/// Japanese and Korean, written without spaces (matched as substrings of the lowercased text).
///
/// Each table is data a reader can scan and extend: a row per phrase, grouped by language.
/// The scorers read them through ``Phrases`` (words) and ``Substrings`` (CJK).
enum LanguagePhrases {
    // MARK: - Picture talk

    /// The picture as a picture, anywhere in the model's own voice (`perception_meta`); at the
    /// opening also `redundant_prefix`.
    static let pictureTalk = Phrases([
        // the picture named with a determiner, whatever follows ("La imagen incluye", "durch das Bild")
        "das bild", "dieses bild", "die abbildung", "cette image", "l'image", "cette photo", "la imagen", "esta imagen",
        "a imagem", "esta imagem", "essa imagem", "de afbeelding", "deze afbeelding", "deze foto", "het beeld",
        "l'immagine", "questa immagine", "questa foto", "zie je", "zien we", "ein bild, das", "das foto", "dieses foto",
        "la photo", "esta foto", "essa foto", "a foto", "deze foto", "la foto",
        // de
        "das bild zeigt", "dieses bild zeigt", "das foto zeigt", "dieses foto zeigt", "die abbildung zeigt",
        "auf dem bild", "auf diesem bild", "auf dem foto", "auf diesem foto", "im bild", "in diesem bild",
        "das bild stellt", "das bild ist", "dieses bild ist", "das bild enthalt", "das bild hat",
        "ist zu sehen", "sind zu sehen", "sieht man", "man sieht", "kann man sehen", "ich sehe", "wir sehen",
        // fr
        "l'image montre", "cette image montre", "la photo montre", "cette photo montre", "l'image represente",
        "cette image represente", "l'image presente", "l'image est", "cette image est", "l'image met",
        "sur l'image", "sur cette image", "sur la photo", "sur cette photo", "dans l'image", "dans cette image",
        "on voit", "on peut voir", "nous voyons", "je vois", "on apercoit",
        // es
        "la imagen muestra", "esta imagen muestra", "la foto muestra", "esta foto muestra", "la imagen es",
        "esta imagen es", "la imagen presenta", "la imagen representa", "la imagen captura", "la imagen tiene",
        "en la imagen", "en esta imagen", "en la foto", "en esta foto", "en la fotografia", "en esta fotografia",
        // "se ven" and "si vedono" ("are seen": visible) describe, as "visible in the background" does.
        "se puede ver", "se pueden ver", "podemos ver", "vemos", "veo",
        // pt
        "a imagem mostra", "esta imagem mostra", "essa imagem mostra", "a foto mostra", "esta foto mostra",
        "a imagem e", "a imagem apresenta", "a imagem retrata", "a imagem captura", "a imagem exibe",
        "na imagem", "nesta imagem", "nessa imagem", "na foto", "nesta foto", "na fotografia",
        "pode-se ver", "podemos ver", "e possivel ver", "vemos", "vejo",
        // nl
        "de afbeelding toont", "deze afbeelding toont", "de foto toont", "deze foto toont", "de afbeelding laat",
        "deze afbeelding laat", "de foto laat", "de afbeelding is", "de afbeelding bevat", "het beeld toont",
        "op de afbeelding", "op deze afbeelding", "op de foto", "op deze foto", "in de afbeelding",
        "in deze afbeelding", "op het beeld", "is te zien", "zijn te zien", "je ziet", "we zien", "ik zie",
        // it
        "l'immagine mostra", "questa immagine mostra", "la foto mostra", "questa foto mostra",
        "l'immagine raffigura", "l'immagine ritrae", "l'immagine presenta", "l'immagine rappresenta",
        "l'immagine e", "nell'immagine", "in questa immagine", "nella foto", "in questa foto",
        "nella fotografia", "si puo vedere", "possiamo vedere", "vediamo", "vedo",
    ])

    /// Openings that announce the picture by its plain name: "Bild von", "Imagen de".
    static let pictureOpenings = Phrases([
        "bild von", "bild eines", "bild einer", "ein bild von", "image de", "image d'un", "image d'une",
        "une image de", "image d", "une image d", "imagen de", "bild", "un'immagine", "imagem mostra", "detailreiches bild", "una imagen de", "imagem de", "uma imagem de", "afbeelding van",
        "een afbeelding van", "immagine di", "un'immagine di",
    ])

    /// The picture as a picture in Chinese, Japanese and Korean, anywhere in the own voice.
    static let pictureTalkCJK = Substrings([
        // ja
        "この画像", "この写真", "このイラスト", "画像には", "画像では", "画像は", "画像の中", "画像に写",
        "写真には", "写真では", "写真は", "写真の中", "写真に写", "写っています", "写っている", "が写っ",
        "画像から", "イラストには", "写真です",
        // zh
        "这张图片", "这幅图片", "这张照片", "这幅照片", "这张图", "这幅图", "该图片", "此图片", "这个图片",
        "图片中", "图片里", "图片上", "图片显示", "图片展示", "图片描绘", "图片呈现", "图中", "图像中",
        "照片中", "照片里", "该图像", "张图片", "幅图片", "张照片", "画面中", "画面里", "在图片", "可以看到", "可以看见", "這張圖片", "圖片中", "圖中",
        // ko
        "이 이미지", "이미지에는", "이미지는", "이미지에서", "이 사진", "사진에는", "사진은", "사진에서", "볼 수 있습니다",
    ])

    /// Openings that announce the picture in Chinese, Japanese and Korean.
    static let pictureOpeningsCJK = Substrings([
        "この画像", "この写真", "画像は", "画像には", "写真は", "写真には", "这张", "这幅", "图片", "图中",
        "这是一张", "这是一幅", "이 이미지", "이 사진", "이미지는", "사진은",
    ])

    /// Picture words that, in a CJK opening clause, announce the picture: "画像では、…",
    /// "这两张图片…", "第一张图片是…", "이미지에는 …", "冷蔵庫の中の写真です。".
    static let openingClauseCJK = Substrings(["图片", "图像", "画像", "이미지", "写真です", "照片中", "这张照片", "この写真", "사진에"])

    // MARK: - Meta labels and chatter

    /// Chatty lead-ins and closing chatter in the languages after English.
    static let chatter = Phrases([
        "ik hoop dat", "laat het me weten", "laat me weten", "hier is een beschrijving", "hier is de beschrijving",
        "spero che", "fammi sapere", "non esitare", "audiodescricao", "audiodescripcion", "audiodescription", "ecco una descrizione", "ecco la descrizione",
        "ecco il testo", "certo!", "gerne!", "claro!", "natuurlijk!", "helfe ich gerne", "helfe gerne",
        "falls sie eine", "falls sie weitere", "wenn sie weitere", "si vous avez", "si tienes", "se tiver", "als je nog",
        "se hai bisogno",
    ])

    /// Words that make a first line ending with a colon present what follows, in any language:
    /// "Here are the keywords:", "图片中的OCR结果如下：", "Voici la description :".
    static let presentingWords = Phrases([
        "here is", "here's", "here are", "below is", "as follows", "voici", "ci-dessous",
        "hier ist", "hier sind", "aqui tienes", "aqui esta", "aqui estan", "aqui estao", "ecco", "hieronder",
    ])
    static let presentingCJK = Substrings(["如下", "以下是", "下面是", "以下は", "以下の", "다음은"])

    /// Labels, lead-ins and chatter in Chinese, Japanese and Korean, anywhere in the own voice.
    static let chatterCJK = Substrings([
        // ja
        "お役に立て", "他に何か", "お手伝い", "質問があれば", "ご質問", "ご不明な点", "いかがでしょうか", "承知しました", "かしこまりました",
        "以下は", "以下に", "もちろんです", "説明：", "説明:", "代替テキスト：", "代替テキスト:", "キャプション：",
        // zh
        "希望这", "希望对你", "希望对您", "如果你需要", "如果您需要", "如有需要", "请告诉我", "如果您有", "如果你有", "很乐意", "您好", "请您",
        "以下是", "下面是", "描述：", "描述:", "说明：", "替代文本：", "替代文本:", "图片描述：", "当然！", "当然可以",
        "好的，", "好的！",
        // ko
        "도움이 되", "궁금한", "다음은", "물론입니다", "설명:", "대체 텍스트:",
    ])

    /// `meta_label`'s openings and chatter in English, French, German, Spanish and Portuguese,
    /// as word lists (``MetaLabelScorer/phrases(_:)``).
    /// Openings spoken to the asker: the answer replies instead of describing.
    static let spokenOpenings: [[String]] = MetaLabelScorer.phrases(
        "here is what i see", "here's what i see", "here is what i can see", "here's what i can see",
        "here is what the image shows", "here's what the image shows", "here's what's in the image",
        "let's take a look", "let's take a closer look", "let's break it down", "let's break down",
        "let's describe", "let's see", "let me describe", "let me take a look", "let me break", "let's analyze",
        "let's analyse", "let's examine", "let's look", "let's identify", "let me analyze", "let me analyse",
        "that's a", "that's an", "that is a", "that is an", "this is a description", "this is the description",
        "this is an alt text", "this is the alt text", "this is a caption for", "here you go",
        // fr, de, es, pt
        "voici une description", "voici la description", "voici le texte alternatif", "hier ist eine beschreibung",
        "hier ist die beschreibung", "hier ist der alternativtext", "aquí tienes una descripción",
        "aquí está la descripción", "aqui está uma descrição", "aqui está a descrição",
    )

    /// Remarks to the asker, flagged anywhere in the model's own voice.
    static let chatterPhrases: [[String]] = MetaLabelScorer.phrases(
        "i hope this helps", "i hope that helps", "hope this helps", "hope that helps", "let me know if",
        "let me know", "feel free to", "is there anything else", "anything else i can", "would you like me to",
        "do you want me to", "if you want me to", "if you'd like", "if you would like", "if you need anything",
        "if you need any", "if you need more", "happy to help", "glad to help", "happy to adjust",
        "i'd be happy to", "i can also", "i can adjust", "i can make it", "i hope", "want me to", "shall i",
        "is this what you", "how can i assist", "how can i help", "how may i assist", "if you have any",
        "if you can provide", "if you could provide", "please provide", "please upload", "please share",
        "i would be happy to", "i'll be happy to", "i'm happy to help", "i am happy to help", "as mentioned earlier",
        "as i mentioned", "as previously mentioned", "this description", "all descriptions", "the description above",
        // fr, de, es, pt
        "j'espère que cela", "n'hésitez pas", "ich hoffe", "zögern sie nicht", "lassen sie mich wissen",
        "lass mich wissen", "espero que esto", "espero que te sirva", "no dudes en", "avísame si",
        "espero que isso", "espero que ajude", "não hesite", "me avise",
    )

    /// Words allowed between a presentation and what it presents ("Here is a short, descriptive
    /// alt text"); any other word ends the search ("Here is a cat with a caption").
    static let presentationModifiers: Set<String> = [
        "a", "an", "the", "your", "my", "this", "that", "some", "possible", "suggested", "proposed", "short",
        "shorter", "brief", "concise", "descriptive", "detailed", "simple", "clear", "accessible", "good",
        "improved", "revised", "new", "one-sentence", "image", "photo", "picture", "suitable", "appropriate",
        "quick", "full", "visual", "few", "two", "three", "several",
    ]

    /// What a presentation must present: "Here is the alt text", "Here's a breakdown of the image".
    static let presented: Set<String> = [
        "alt", "alt-text", "alttext", "description", "descriptions", "caption", "captions", "breakdown",
        "overview", "summary", "options", "suggestions", "versions",
    ]

    // MARK: - Refusals

    /// Refusals in Chinese, Japanese and Korean: apologies, and inabilities to see, identify,
    /// describe or help.
    /// Apologies in Chinese, Japanese and Korean, a refusal only with an inability
    /// (``inabilityCJK``) in the text: "申し訳ありませんが、この画像には人物が描かれていないようです" corrects, it does not refuse.
    static let apologyCJK = Substrings([
        "申し訳ありません", "申し訳ございません", "申し訳ないのですが", "すみませんが", "抱歉", "对不起", "很遗憾", "죄송합니다", "죄송하지만",
    ])
    static let inabilityCJK = Substrings(["できません", "できない", "出来ません", "无法", "不能", "没法", "수 없", "困難"])

    static let refusalCJK = Substrings([
        // ja
        "お手伝いできません", "説明が困難", "説明することが困難",
        "特定することはできません", "特定できません", "識別することはできません", "識別できません",
        "見ることができません", "表示できません", "アクセスできません", "お答えできません", "回答できません",
        "提供できません", "説明することはできません", "aiとして", "言語モデルとして",
        // zh
        "抱歉", "对不起，", "很遗憾，我", "我无法", "我不能", "我没法", "我没有办法", "无法识别", "无法查看",
        "无法访问", "无法提供", "无法描述", "作为一个ai", "作为ai", "作为人工智能", "作为一个人工智能",
        "不能识别", "不能提供", "無法", "没有看到任何图片", "没有提供任何图片", "我没有视觉",
        // ko
        "도와드릴 수 없", "식별할 수 없", "제공할 수 없", "볼 수 없습니다", "설명할 수 없",
    ])

    // MARK: - Truncation

    /// Words a description does not end on, per language: articles, prepositions,
    /// conjunctions, possessives. Applied when the text reads as that language
    /// (``guessLanguage(_:declared:)``).
    static let danglingWords: [String: Set<String>] = [
        "de": [
            // Not the particles that end a sentence with a separable verb ("pumpt einen Ballon auf"):
            // auf, aus, mit, zu, vor, nach, bei, an.
            "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines", "und",
            "oder", "von", "vom", "zum", "zur", "im", "am", "fur", "uber", "unter", "zwischen", "sowie", "seine",
            "ihre", "ist", "sind",
        ],
        "fr": [
            "le", "la", "les", "un", "une", "des", "du", "de", "et", "ou", "avec", "sur", "dans", "pour", "par",
            "au", "aux", "en", "son", "sa", "ses", "leur", "leurs", "qui", "que", "est", "sont", "d'un", "d'une",
        ],
        "es": [
            "el", "la", "los", "las", "un", "una", "unos", "unas", "y", "o", "de", "del", "con", "en", "por",
            "para", "al", "su", "sus", "que", "es", "son", "entre", "sobre",
        ],
        "pt": [
            "o", "os", "as", "um", "uma", "e", "ou", "de", "do", "da", "dos", "das", "com", "em", "no", "na",
            "nos", "nas", "por", "para", "pelo", "pela", "seu", "sua", "que", "entre", "sobre",
        ],
        // Not the words Dutch ends a clause with ("waar ik geen woord voor heb"): op, aan, voor, bij, naar, uit, door, over.
        "nl": ["de", "het", "een", "en", "of", "met", "van", "zijn", "haar", "die", "dat", "is"],
        "it": [
            "il", "lo", "gli", "le", "un", "una", "uno", "e", "o", "di", "del", "della", "dei", "delle", "con",
            "su", "per", "da", "al", "alla", "nel", "nella", "suo", "sua", "che", "tra", "fra",
        ],
    ]

    /// Particles a Japanese sentence does not end on (を, が, に, で, と, の, は, や, へ), and
    /// Chinese words that need what follows (的, 和, 与, 及, 或, 在, 把, 被, 从, 向, 对).
    static let danglingJapanese: Set<Character> = ["を", "が", "に", "で", "と", "の", "は", "や", "へ"]
    static let danglingChinese: Set<Character> = ["的", "和", "与", "及", "或", "在", "把", "被", "从", "向", "对"]

    /// Last words that leave a sentence waiting for more: linking and reporting verbs, "such",
    /// "like". Judged only after a finished sentence, on a last one with no final mark.
    static let continuingWords: Set<String> = [
        "appears", "seems", "looks", "shows", "features", "includes", "include", "contains", "displays", "depicts",
        "resembles", "holds", "has", "have", "had", "be", "being", "been", "such", "becomes", "suggests", "indicates",
    ]

    /// Common words that tell the languages apart, for ``guessLanguage(_:declared:)``.
    static let markers: [String: Set<String>] = [
        "en": ["the", "and", "with", "of", "is", "a", "in", "on", "to", "it", "this", "that", "are", "i"],
        "de": ["der", "die", "das", "und", "mit", "ein", "eine", "ist", "auf", "im", "nicht", "ich", "sich", "zu", "den"],
        "fr": ["le", "la", "les", "et", "avec", "un", "une", "des", "est", "sur", "dans", "je", "ne", "pas", "cette", "ce", "du"],
        "es": ["el", "la", "los", "las", "y", "con", "un", "una", "es", "del", "en", "lo", "por", "para", "esta", "que"],
        "pt": ["o", "os", "as", "e", "com", "um", "uma", "do", "da", "na", "no", "em", "nao", "para", "esta", "que"],
        "nl": ["de", "het", "een", "en", "met", "van", "op", "is", "zijn", "niet", "ik", "dat", "voor", "naar"],
        "it": ["il", "la", "e", "con", "un", "una", "di", "del", "della", "nel", "nella", "non", "che", "per", "questa"],
    ]

    /// The language `words` (folded) read as: the declared one when given, else the one whose
    /// ``markers`` occur most (English when none does).
    static func guessLanguage(_ words: [String], declared: String?) -> String {
        if let declared, let primary = declared.lowercased().split(separator: "-").first { return String(primary) }
        var best = ("en", 0)
        for (lang, set) in markers.sorted(by: { $0.key < $1.key }) {
            let hits = words.filter(set.contains).count
            if hits > best.1 || (hits == best.1 && lang == "en") { best = (lang, hits) }
        }
        return best.0
    }

    // MARK: - Matching

    /// Whether `c` is written in a CJK script (Han, kana, Hangul) or is CJK punctuation.
    static func isCJK(_ c: Character) -> Bool {
        guard c.asciiByte == nil, let scalar = c.unicodeScalars.first, scalar.value >= 0x3000 else { return false }
        switch scalar.value {
        case 0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0x1100...0x11FF, 0xFF00...0xFFEF:
            return true
        default:
            return false
        }
    }

    /// Word phrases, written as text; matched on folded words with only spaces between them.
    struct Phrases: Sendable {
        let byFirstWord: [String: [[String]]]

        /// Each phrase's longest word: a text holding none of them matches no phrase, and is
        /// passed over without folding its words.
        let anchors: Set<String>

        init(_ phrases: [String]) {
            let split = phrases.map { $0.split(separator: " ").map(String.init) }
            byFirstWord = Dictionary(grouping: split.sorted { $0.count > $1.count }, by: { $0[0] })
            anchors = Set(split.map { words in words.max { $0.count < $1.count }! })
        }

        /// Whether `words` may hold a phrase: one of them is an anchor.
        func mayMatch(_ words: some Collection<TextAnalysis.Word>) -> Bool {
            words.contains { word in
                anchors.contains(word.normalized)
                    || (word.normalized.utf8.contains { $0 >= 0x80 } && anchors.contains(LanguagePhrases.folded(word)))
            }
        }

        /// The end (word index past it) of the longest phrase starting at word `index`.
        func end(at index: Int, folded: [String], words: [TextAnalysis.Word], chars: [Character]) -> Int? {
            guard let candidates = byFirstWord[folded[index]] else { return nil }
            for phrase in candidates where index + phrase.count <= folded.count {
                var ok = true
                for k in 1..<max(phrase.count, 1) {
                    if folded[index + k] != phrase[k]
                        || !TextAnalysis.areAdjacent(words[index + k - 1], words[index + k], in: chars)
                    {
                        ok = false
                        break
                    }
                }
                if ok { return index + phrase.count }
            }
            return nil
        }

        /// The first phrase anywhere in the words, as written, unless `skip` rejects it.
        func first(
            folded: @autoclosure () -> [String], words: [TextAnalysis.Word], chars: [Character],
            skip: (Range<Int>) -> Bool = { _ in false }
        ) -> String? {
            guard mayMatch(words) else { return nil }
            let folded = folded()
            for index in folded.indices {
                if let end = end(at: index, folded: folded, words: words, chars: chars), !skip(index..<end) {
                    return String(chars[words[index].range.lowerBound..<words[end - 1].range.upperBound])
                }
            }
            return nil
        }
    }

    /// Character sequences, matched as substrings of the lowercased text.
    struct Substrings: Sendable {
        let sequences: [String]

        init(_ sequences: [String]) { self.sequences = sequences }

        /// The first sequence found in `text` (the table's order), or `nil`. Only texts with a
        /// CJK character are searched.
        func first(in chars: some Collection<Character>) -> String? {
            guard chars.contains(where: LanguagePhrases.isCJK) else { return nil }
            let text = String(chars).lowercased()
            return sequences.first { text.contains($0) }
        }

        /// The sequence `text` opens with, after markdown and spaces, or `nil`.
        func opening(of chars: [Character]) -> String? {
            guard let start = chars.firstIndex(where: { !TextAnalysis.isLeadingMarkup($0) }),
                LanguagePhrases.isCJK(chars[start])
            else { return nil }
            let text = String(chars[start...].prefix(12)).lowercased()
            return sequences.first { text.hasPrefix($0) }
        }
    }

    /// `words` lowercased and without accents, as the tables write them.
    static func folded(_ words: [TextAnalysis.Word]) -> [String] {
        words.map(folded)
    }

    /// One word lowercased and without accents ("Désolé" → "desole"); ASCII words as they are.
    static func folded(_ word: TextAnalysis.Word) -> String {
        guard word.normalized.utf8.contains(where: { $0 >= 0x80 }) else { return word.normalized }
        return word.normalized.folding(options: .diacriticInsensitive, locale: nil)
    }
}
