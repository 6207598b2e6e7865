import Foundation

extension JudgeRubric {
    /// How runs, banners and reports name the built-in rubric (`judge.rubric` unset).
    package static let builtInLabel = "built-in:alt-text"

    /// The rubric altbench grades by when `judge.rubric` and `--judge-rubric` are unset:
    /// compiled into the binary, so it works from any folder. `altbench judge --show-rubric`
    /// prints it, as a starting point for a rubric of one's own.
    package static let builtIn = JudgeRubric(name: "alt-text.md", text: builtInText)

    /// The built-in rubric's Markdown, ending in a newline.
    static let builtInText = #"""
# Judging alt text

You are judging alt text: the description a blind or low-vision person hears from a screen
reader in place of an image posted on social media (Mastodon). Look at the image, read the
post it is attached to, then grade the alt text on three counts. Judge what the alt text
says against what the image shows; do not reward length, politeness or style for its own
sake. A wrong description is worse than a long one: grade accuracy first.

These criteria follow WCAG 2.x (success criterion 1.1.1, non-text content), the W3C's alt
decision tree and WebAIM's guidance on alternative text.

## Accuracy: is everything it says true of this image?

- 5: Everything stated is visible in the image or named by the post. Names, numbers, colours
  and transcribed text are exactly right.
- 3: The main subject is right, but one detail is wrong or invented (a colour, a count, a word
  of a sign misread), or something uncertain is stated as fact.
- 1: It describes something else, or its main claim is false: a cat where there is a chart,
  a generic placeholder, a guess presented as a description.

Count as accuracy errors: invented objects, people, text or actions; misread text or numbers;
a wrong name for a person or place the post does not give; a chart's trend reversed;
guessing identity, age, gender or emotion the image does not show.

## Completeness: does a blind reader of this post get what a sighted one gets?

- 5: Gives what matters for this post: the subject, what it is doing, and the setting where
  it matters. All meaningful visible text is transcribed word for word (signs, captions,
  posters, screenshots, code). A chart gives its point and the numbers behind it; a meme
  gives its text and its joke; a diagram gives what connects to what.
- 3: The gist is there, but something a reader needs is missing: part of the visible text,
  a chart's values, the person or place the post is about, what makes the image worth posting.
- 1: Says almost nothing of use ("a photo", "an image with text"), or leaves out the text
  that is the whole point of the image.

Completeness depends on the post: a photo of a cat posted for its opinion of a sofa needs the
cat's look; a screenshot needs its words. Decorative detail need not be listed.

## Concision: is it as short as it can be while saying that?

- 5: Plain, direct sentences; the most important thing first; fits comfortably in a post
  (about 150 characters for a simple photo, longer only when text or data must be given).
- 3: Some filler: an "Image of", "Picture of" or "Photo of" opening (a screen reader already
  says it is an image), hedges ("appears to be", "possibly"), padding adjectives, or a
  sentence that repeats the post.
- 1: Mostly filler or chatter: first person ("I can see", "I think"), notes to the reader
  ("Here is a description", "I hope this helps"), Markdown, hashtags or emoji, or far longer
  than any reader would want.

Naming the medium when it matters is fine ("Screenshot of", "Bar chart:", "Black-and-white
photo"). Quoted text from the image is not the writer's voice: a sign reading "We're closed"
is not first person.

## Examples of errors to report

- "Says the sign reads OPEN; it reads CLOSED."
- "Calls the bar for 2023 the highest; 2021 is higher."
- "Invents a window behind the cat; there is none."
- "Does not transcribe the poster's date and place."
- "Does not name Grace Hopper, whom the post is about."
- "Opens with 'Image of'."
- "Repeats the post text instead of describing the image."
- "Hedges: 'appears to be a dog'."
"""# + "\n"
}
