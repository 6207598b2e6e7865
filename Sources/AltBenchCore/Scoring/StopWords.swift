/// Words that carry no content in the sample's languages: articles, common prepositions,
/// conjunctions, pronouns and copulas, one table per language. The mock judge and the
/// reference match both leave them out when they compare words; a word left out here costs
/// only a little precision, on both sides alike.
public enum StopWords {
    public static let english: Set<String> = [
        "a", "an", "the", "and", "or", "but", "so", "of", "in", "on", "at", "to", "into", "onto", "with",
        "without", "for", "from", "by", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its",
        "it's", "this", "that", "these", "those", "there", "here", "has", "have", "had", "his", "her", "their",
        "them", "they", "he", "she", "one", "over", "under", "up", "down", "out", "off", "above", "below",
        "beside", "behind", "while", "which", "who", "whose", "where", "each", "some", "very", "just", "then",
        "than",
    ]

    public static let french: Set<String> = [
        "le", "la", "les", "un", "une", "des", "du", "de", "et", "ou", "à", "au", "aux", "en", "sur", "dans",
        "avec", "par", "pour", "est", "sont", "son", "sa", "ses", "qui", "que", "ce", "cette", "il", "elle",
    ]

    public static let german: Set<String> = [
        "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines", "und",
        "oder", "mit", "an", "auf", "im", "am", "von", "vom", "zu", "zum", "zur", "ist", "sind", "sich",
    ]

    public static let spanish: Set<String> = [
        "el", "la", "los", "las", "un", "una", "unos", "unas", "y", "o", "de", "del", "en", "con", "por", "para",
        "al", "es", "que", "son", "su", "sus", "se", "lo",
    ]

    /// Every language's table at once: an answer may mix languages, and a word that is a stop
    /// word in one of them is rarely what tells two descriptions apart.
    public static let all: Set<String> = english.union(french).union(german).union(spanish)
}
