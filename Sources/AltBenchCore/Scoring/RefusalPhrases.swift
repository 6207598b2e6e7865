/// The phrases ``RefusalScorer`` looks for, one table per language.
///
/// Words are written lowercased and without accents ("desole", "nao"): the scorer folds the
/// answer's words the same way, so "Désolé", "DESOLE" and "désolé" all match "desole". A
/// phrase of several words matches words with only spaces between them. To widen a
/// language, add a row; to add a language, add a table to ``all``.
struct RefusalPhrases: Sendable {
    /// Openers passed over before the refusal proper; on their own they refuse nothing
    /// ("Sorry, we're closed sign" is a sign).
    var leadIns: [[String]]
    /// Lead-ins that apologise. A short sentence opening with one may come before the
    /// refusal: "Sorry about that. I can't identify people."
    var apologies: [[String]]
    /// Openers that refuse by themselves ("I'm sorry", "As an AI").
    var refusingOpeners: [[String]] = []
    /// Inabilities and prohibitions, which refuse when one of ``actions`` follows.
    var inabilities: [[String]]
    /// Adverbs allowed between the inability and the action: "I can't actually see".
    var adverbs: Set<String> = []
    /// How many other words may come between the inability and the action, in the same
    /// clause: French puts "de" and "vous" there, German the object ("Ich kann dieses Bild
    /// nicht beschreiben").
    var gap = 0
    /// What a vision model refuses to do.
    var actions: Set<String>
    /// Whether ``actions`` are stems, matching any word they begin ("ayud" matches "ayudar"
    /// and "ayudarte"), after an elided article ("d'identifier" is "identifier").
    var actionsAreStems = false
    /// When not empty, one of these must come in the refusal: German "Ich kann" is only an
    /// inability with "nicht" or "kein…" ("Ich kann einen Hund sehen" describes).
    var negations: Set<String> = []
    /// Openings of a clause that may come before the refusal in the same sentence: "As I am
    /// not allowed to…, I can't assist", "Due to privacy concerns, I cannot…".
    var clauseOpeners: [[String]]

    /// Words one of which every refusal holds (a negation, an apology, an inability, "AI"): an
    /// answer with none of them is not searched for a later refusal.
    static let markers: Set<String> = [
        "can't", "cannot", "unable", "won't", "not", "don't", "sorry", "apologize", "apologise", "apologies", "impossible",
        "decline", "refrain", "ai", "model", "afraid", "pas", "ni", "desole", "desolee", "nicht", "kein", "keine",
        "keinen", "keiner", "keines", "leid", "no", "nao", "niet", "geen", "non", "не", "text-based",
    ]

    /// Every language, English first.
    static let all: [RefusalPhrases] = [english, french, german, spanish, portuguese, dutch, italian, russian]

    static let english = RefusalPhrases(
        leadIns: [
            ["sorry"], ["unfortunately"], ["apologies"], ["sadly"], ["regrettably"], ["alas"],
            ["but"], ["however"], ["i'm", "afraid"], ["i", "am", "afraid"],
            // An apology refuses only with a refusal after it: "I'm sorry, but I don't see any
            // pink elephant" corrects the question.
            ["i'm", "sorry"], ["i", "am", "sorry"], ["i", "apologize"], ["i", "apologise"], ["my", "apologies"],
        ],
        apologies: [["sorry"], ["apologies"], ["i'm", "sorry"], ["i", "am", "sorry"], ["i", "apologize"], ["my", "apologies"]],
        refusingOpeners: [
            ["as", "an", "ai"], ["as", "a", "language", "model"],
            ["as", "an", "artificial", "intelligence"], ["i'm", "an", "ai"], ["i", "am", "an", "ai"],
            ["i'm", "just", "an", "ai"], ["as", "a", "text-based"], ["i'm", "a", "text-based"],
            ["i", "am", "a", "text-based"], ["i", "don't", "have", "access"], ["i", "do", "not", "have", "access"],
            ["i", "don't", "have", "the", "capability"], ["i", "do", "not", "have", "the", "capability"],
            ["i", "lack", "the", "ability"], ["i", "don't", "identify"], ["i", "do", "not", "identify"],
            ["i", "don't", "recognize"], ["i", "do", "not", "recognize"], ["i", "don't", "see", "an", "image"],
            ["i", "don't", "see", "any", "image"], ["i", "don't", "see", "the", "image"], ["i", "do", "not", "see", "an", "image"],
            ["i", "do", "not", "see", "any", "image"], ["i", "don't", "see", "an", "attached"],
            ["i", "must", "decline"], ["i", "must", "politely", "decline"], ["i'm", "a", "large", "language", "model"],
            ["i", "am", "a", "large", "language", "model"], ["as", "a", "large", "language", "model"],
            ["it's", "impossible", "for", "me", "to"], ["it", "is", "impossible", "for", "me", "to"],
            ["it's", "not", "possible", "for", "me", "to"], ["i'm", "unable", "to", "meet"],
            ["that's", "something", "i", "cannot"], ["that's", "something", "i", "can't"],
            ["that's", "not", "something", "i"], ["that", "is", "not", "something", "i"], ["i'm", "still", "not", "able", "to"], ["i", "am", "still", "not", "able", "to"], ["i'm", "still", "unable", "to"],
        ],
        inabilities: [
            ["i", "can't"], ["i", "cannot"], ["i", "can", "not"], ["i", "am", "unable", "to"],
            // The past: an attempt that failed ("I couldn't process this image").
            ["i", "couldn't"], ["i", "could", "not"], ["i", "was", "unable", "to"], ["i", "was", "not", "able", "to"],
            ["i", "wasn't", "able", "to"],
            ["i'm", "unable", "to"], ["i", "am", "not", "able", "to"], ["i'm", "not", "able", "to"],
            ["i", "won't"], ["i", "will", "not"], ["i", "won't", "be", "able", "to"],
            ["i", "will", "not", "be", "able", "to"], ["i", "don't", "have", "the", "ability", "to"],
            ["i", "do", "not", "have", "the", "ability", "to"],
            // Rules and permissions.
            ["i'm", "not", "allowed", "to"], ["i", "am", "not", "allowed", "to"],
            ["i'm", "not", "permitted", "to"], ["i", "am", "not", "permitted", "to"],
            ["i", "must", "refrain", "from"], ["i", "have", "to", "refrain", "from"],
            ["i", "must", "decline", "to"], ["i'm", "not", "going", "to"],
            ["i'm", "not", "in", "a", "position", "to"], ["i", "am", "not", "in", "a", "position", "to"],
            ["i'm", "not", "comfortable"], ["i", "am", "not", "comfortable"],
            ["i", "don't", "feel", "comfortable"], ["i", "do", "not", "feel", "comfortable"],
            ["it", "is", "not", "appropriate", "for", "me", "to"],
            ["it's", "not", "appropriate", "for", "me", "to"],
            ["it", "would", "not", "be", "appropriate", "for", "me", "to"],
            ["it", "wouldn't", "be", "appropriate", "for", "me", "to"],
        ],
        adverbs: ["actually", "directly", "really", "currently", "physically", "visually"],
        // "read", "tell" and "make out" are left out: "I can't read the small print, but…"
        // hedges a description rather than refusing one.
        actions: [
            "see", "view", "describe", "identify", "help", "assist", "process", "access", "analyze",
            "analyse", "interpret", "open", "display", "provide", "comply", "fulfill", "fulfil",
            "perceive", "look", "do", "recognize", "recognise", "share", "speculate", "discuss",
            "disclose", "reveal", "give", "offer", "comment",
            "describing", "identifying", "helping", "assisting", "providing", "analyzing",
            "analysing", "recognizing", "recognising", "speculating", "sharing", "discussing",
            "commenting", "disclosing", "revealing",
        ],
        clauseOpeners: [
            ["as"], ["since"], ["because"], ["due", "to"], ["owing", "to"], ["for"], ["given"],
            ["out", "of"], ["in", "light", "of"], ["to", "protect"], ["to", "respect"], ["while"], ["although"],
            ["though"], ["even", "though"], ["whilst"], ["without"], ["unfortunately"], ["as", "mentioned"],
        ])

    static let french = RefusalPhrases(
        leadIns: [
            ["desole"], ["desolee"], ["je", "suis", "desole"], ["je", "suis", "desolee"],
            ["malheureusement"], ["mais"], ["pardon"], ["excusez-moi"],
        ],
        apologies: [["desole"], ["desolee"], ["je", "suis", "desole"], ["je", "suis", "desolee"], ["pardon"]],
        inabilities: [
            ["je", "ne", "peux", "pas"], ["je", "ne", "peux", "malheureusement", "pas"], ["je", "ne", "peux", "ni"],
            ["je", "ne", "peux", "malheureusement", "ni"], ["je", "n'ai", "pas", "pu"], ["je", "n'ai", "pas", "reussi", "a"],
            ["je", "ne", "pourrai", "pas"], ["je", "ne", "suis", "pas", "en", "mesure"],
            ["je", "ne", "suis", "pas", "capable"], ["je", "ne", "suis", "pas", "autorise"],
            ["je", "ne", "suis", "pas", "autorisee"], ["je", "n'ai", "pas", "le", "droit"],
            ["il", "m'est", "impossible"],
        ],
        gap: 3,
        actions: [
            "aid", "decri", "identifi", "fourn", "analys", "trait", "reconna", "voir", "acced",
            "interpret", "donn", "partag", "repond",
        ],
        actionsAreStems: true,
        clauseOpeners: [["comme"], ["etant", "donne"], ["pour"], ["en", "raison"], ["par", "respect"]])

    static let german = RefusalPhrases(
        leadIns: [
            ["es", "tut", "mir", "leid"], ["tut", "mir", "leid"], ["leider"], ["aber"],
            ["entschuldigung"], ["bedauerlicherweise"],
        ],
        apologies: [["es", "tut", "mir", "leid"], ["tut", "mir", "leid"], ["entschuldigung"]],
        inabilities: [
            ["ich", "kann"], ["kann", "ich"], ["ich", "darf"], ["darf", "ich"],
            ["ich", "bin", "nicht", "in", "der", "lage"], ["es", "ist", "mir", "nicht", "moglich"],
        ],
        gap: 12,
        actions: [
            "beschreib", "identifizier", "erkenn", "helf", "behilflich", "sehen", "anseh",
            "analysier", "bereitstell", "liefer", "geben", "mach", "beantwort", "unterstutz",
            "verarbeit", "auswert", "nenn", "anzeig", "zieh",
        ],
        actionsAreStems: true,
        negations: ["nicht", "kein", "keine", "keinen", "keiner", "keines", "keinerlei", "nichts"],
        clauseOpeners: [["aus"], ["da"], ["wegen"], ["aufgrund"], ["zum", "schutz"]])

    static let spanish = RefusalPhrases(
        leadIns: [
            ["lo", "siento"], ["lo", "siento", "mucho"], ["lamentablemente"], ["desafortunadamente"],
            ["disculpa"], ["disculpe"], ["perdon"], ["pero"], ["sin", "embargo"],
        ],
        apologies: [["lo", "siento"], ["lo", "siento", "mucho"], ["disculpa"], ["disculpe"], ["perdon"]],
        inabilities: [
            ["no", "puedo"], ["no", "podre"], ["no", "pude"], ["no", "he", "podido"], ["no", "me", "es", "posible"], ["no", "soy", "capaz", "de"],
            ["no", "estoy", "en", "condiciones", "de"], ["no", "tengo", "permitido"],
            ["no", "estoy", "autorizado", "para"], ["no", "estoy", "autorizada", "para"],
        ],
        gap: 1,
        actions: [
            "ayud", "describ", "identific", "proporcion", "ofrec", "analiz", "proces", "reconoc",
            "ver", "acced", "interpret", "dar", "brind", "compart", "hacer",
        ],
        actionsAreStems: true,
        clauseOpeners: [["como"], ["debido", "a"], ["por"], ["dado", "que"], ["ya", "que"]])

    static let portuguese = RefusalPhrases(
        leadIns: [
            ["desculpe"], ["desculpa"], ["sinto", "muito"], ["infelizmente"], ["lamento"], ["perdao"],
            ["mas"], ["porem"],
        ],
        apologies: [["desculpe"], ["desculpa"], ["sinto", "muito"], ["lamento"], ["perdao"]],
        inabilities: [
            ["nao", "posso"], ["nao", "consigo"], ["nao", "consegui"], ["nao", "pude"], ["nao", "poderei"], ["nao", "sou", "capaz", "de"],
            ["nao", "estou", "em", "condicoes", "de"], ["nao", "tenho", "permissao", "para"],
            ["nao", "estou", "autorizado", "a"], ["nao", "estou", "autorizada", "a"],
        ],
        gap: 1,
        actions: [
            "ajud", "descrev", "identific", "fornec", "analis", "process", "reconhec", "ver",
            "acess", "interpret", "dar", "oferec", "compartilh", "fazer",
        ],
        actionsAreStems: true,
        clauseOpeners: [["como"], ["devido", "a"], ["por"], ["dado", "que"], ["ja", "que"]])

    static let dutch = RefusalPhrases(
        leadIns: [
            ["sorry"], ["het", "spijt", "me"], ["helaas"], ["excuses"], ["maar"], ["echter"],
        ],
        apologies: [["sorry"], ["het", "spijt", "me"], ["excuses"]],
        inabilities: [
            ["ik", "kan"], ["kan", "ik"], ["ik", "ben", "niet", "in", "staat"], ["ik", "mag"], ["mag", "ik"], ["ik", "weet"],
            ["weet", "ik"],
        ],
        gap: 12,
        actions: [
            "beschrijv", "beschrijf", "omschrijv", "identificer", "herken", "help", "zien", "bekijk", "analyser", "verwerk",
            "geven", "lever", "bied", "openen",
        ],
        actionsAreStems: true,
        negations: ["niet", "geen", "niets"],
        clauseOpeners: [["omdat"], ["aangezien"], ["vanwege"], ["uit", "respect"], ["hier"], ["helaas"]])

    static let italian = RefusalPhrases(
        leadIns: [
            ["mi", "dispiace"], ["spiacente"], ["purtroppo"], ["scusa"], ["scusami"], ["scusate"], ["ma"],
            ["tuttavia"],
        ],
        apologies: [["mi", "dispiace"], ["spiacente"], ["scusa"], ["scusami"]],
        inabilities: [
            ["non", "posso"], ["non", "riesco", "a"], ["non", "sono", "in", "grado", "di"], ["non", "mi", "e", "possibile"],
            ["non", "potro"], ["non", "sono", "riuscito", "a"], ["non", "ho", "potuto"], ["non", "sono", "autorizzato", "a"], ["non", "mi", "e", "consentito"],
        ],
        gap: 1,
        actions: [
            "descriv", "identific", "riconosc", "aiut", "veder", "acced", "analizz", "elabor", "fornir", "dar",
            "far", "offrir", "interpret",
        ],
        actionsAreStems: true,
        clauseOpeners: [["poiche"], ["dato", "che"], ["per"]])

    static let russian = RefusalPhrases(
        leadIns: [["к", "сожалению"], ["извините"], ["простите"], ["но"]],
        apologies: [["извините"], ["простите"]],
        inabilities: [["не", "могу"], ["я", "не", "могу"], ["я", "не", "в", "состоянии"]],
        gap: 1,
        actions: ["посмотр", "просмотр", "опис", "увид", "помо", "определ", "идентифиц", "распозна", "анализ"],
        actionsAreStems: true,
        clauseOpeners: [["так", "как"], ["поскольку"]])
}
