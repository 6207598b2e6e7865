import Testing

@testable import AltBenchCore

@Suite("first_person")
struct FirstPersonScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("I see a cat", "I"),
        .flag("We are looking at a lake", "we"),
        .flag("My cat asleep on a sofa.", "my"),
        .flag("A view of our garden.", "our"),
        .flag("I'm not sure, but it looks like a cat.", "I'm"),
        .flag("I\u{2019}m looking at a cat.", "I'm"),
        .flag("We've got a cat here.", "we've"),
        .flag("A cat that we\u{2019}ve adopted.", "we've"),
        .flag("i'm not sure what this is.", "I'm"),
        .flag("A cat sitting next to me.", "me"),
        .flag("A friend of mine with a dog.", "mine"),
        .flag("This cat is mine.", "mine"),
        .flag("A photo of us at the beach.", "us"),
        .flag("Let's look at a cat.", "let's"),
        .flag("The dog is ours.", "ours"),
        .flag("We made this ourselves.", "we, ourselves"),
        .flag("I took this photo myself.", "I, myself"),
        .flag("Here I am with my dog and my cat.", "I, my"),
        .flag("Then I saw a dog.", "I"),
        .flag("Honestly, I think it's a fox.", "I"),
        .flag("Anna and I at the beach.", "I"),
        .flag("A lake, and I love it.", "I"),
        .flag("A cat. We see it sleeping.", "we"),
        .flag("In this image, we can see a lake.", "we"),
        .flag("A cat (my favourite) sleeping.", "my"),
        .flag("Description: We see a lake.", "we"),
        .flag("- We see a cat\n- a dog", "we"),
        .flag("A cat.\nI think it is asleep.", "I"),
        // Only the quotation is reported; the model speaks again after it.
        .flag("A sign reads \u{201C}Open\u{201D} and I think it's a bakery.", "I"),
        .flag("A sign reads: \u{201C}Open.\u{201D} We are outside.", "we"),
        .flag("A sign that says \"Open\".\nWe went in.", "we"),
        // A quotation left open in a finished text ends with its sentence.
        .flag("A sign reading \u{201C}Open. We went in and I liked it.", "we, I"),
        .flag("A sign reading \u{201C}Open.\nWe went in and I liked it", "we, I"),
        // Inch marks, '90s and rock 'n' roll are not quotations that hide what follows.
        .flag("A 12\" vinyl record we found.", "we"),
        .flag("A '90s style room where we relax.", "we"),
        .flag("Rock 'n' roll poster on our wall.", "our"),
        .flag("Us and them, a mural.", "us"),
        .flag("I, NASA fan, took this.", "I"),
        .flag("I see NASA's logo.", "I"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat."),
        .pass("The image shows a dog."),
        // The Ice Cubes prompt names the first person without using it.
        .pass("What\u{2019}s in this image? Be brief, it's for image alt description on a social network. Don't write in the first person."),
        // Transcribed and quoted text is not the model's voice.
        .pass("A sign reads: WE ARE OPEN."),
        .pass("A sign reads: we are open."),
        .pass("A banner saying \u{201C}I love NY\u{201D}."),
        .pass("A T-shirt with the text 'my other car is a cat'"),
        .pass("A plaque that says I was here."),
        .pass("A mug with \u{2018}I\u{2019}m the boss\u{2019} printed on it."),
        .pass("A mug: \u{2018}I\u{2019}m the boss, we rule\u{2019}."),
        .pass("A sign saying 'We're open' on a door."),
        .pass("A label captioned Our Finest Ale."),
        .pass("A poster titled my summer, in pink."),
        .pass("Graffiti: \u{201E}We were here\u{201C} and \u{00AB}I was here\u{00BB}."),
        // Cut off inside a transcription (max_tokens): the rest is still the quotation.
        .pass("A page that reads: \u{201C}Let us first find markers. These are pixels that we can label as either object"),
        .pass("A sign: \"Sorry. We are closed until I"),
        // All-caps words are signs or acronyms.
        .pass("A US flag"),
        .pass("A T-shirt printed with MY RULES."),
        .pass("A door with I\u{2019}M BACK in red paint."),
        .pass("A map of ME and NH."),
        .pass("A T-shirt: I LOVE NY."),
        .pass("A mug, I \u{2665} NY, on a desk."),
        // The Roman numeral one.
        .pass("A poster for World War I."),
        .pass("King Henry I on horseback."),
        .pass("Soldiers in World War I trenches."),
        .pass("A statue of King Henry I beside a church."),
        .pass("Henry I on horseback."),
        .pass("A portrait of Queen Elizabeth I."),
        .pass("A neon letter I on a brick wall."),
        .pass("Leaflet on type I diabetes."),
        .pass("Part I of the series."),
        // Lowercase i and words that merely contain first-person letters.
        .pass("A to-do list, i.e. a note."),
        .pass("An iPhone on a table."),
        .pass("Users and museums"),
        .pass("Mesh fence, mustard jar, ourselves-free zone."),
        // "mine" the noun.
        .pass("Mine shaft entrance in the hills."),
        .pass("A coal mine at dusk."),
        .pass("A mine cart on rails."),
        // Capitalised inside a sentence: part of a name or title.
        .pass("A statue of Our Lady in a church."),
        .pass("A poster of the film We Were Soldiers."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsFirstPersonInTheModelsOwnVoice(_ row: ScoringFlagCase) {
        expectFlag(FirstPersonScorer(), name: ScoreName.firstPerson, row)
    }
}
