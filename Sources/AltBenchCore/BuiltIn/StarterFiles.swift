import Foundation

/// The files `altbench init` writes, compiled into the binary so that it works from any
/// folder. The repository's own `altbench.yml`, `prompts/icecubes.md` and
/// `prompts/one-sentence.md` are the same text (a test keeps them so).
package enum StarterFiles {
    /// Today's defaults for `altbench run`, every key commented.
    package static let configuration = configurationText
    /// Ice Cubes' alt-text request, the baseline every variant is compared against.
    package static let icecubesPrompt = icecubesText
    /// One variant of it, to compare against from the first run.
    package static let oneSentencePrompt = oneSentenceText
    /// How to make a dataset, for a starting point without the sample.
    package static let datasetsReadme = datasetsReadmeText
    /// Keeps the store and the reports out of git, and the baseline in.
    package static let resultsGitignore = """
        # altbench's answers store and reports are rebuilt by `altbench run`; the baseline
        # (`altbench baseline save`) is meant to be committed and reviewed.
        altbench.sqlite*
        latest.*
        runs/

        """

    static let configurationText = #"""
# altbench.yml: defaults for `altbench run`. Flags override these; the environment
# (OPENAI_API_KEY, OPENAI_BASE_URL) overrides them too. Every key is optional.

prompts: prompts              # folder of prompt files (NAME.md)
dataset: datasets/sample      # folder with manifest.jsonl, or a bare folder of images
results: results              # altbench.sqlite, latest.md, runs/<run-id>.md

# The token limits every prompt runs at, replacing each prompt's own `max_tokens`: does a
# short limit (Ice Cubes sends 50) cut descriptions off? Remove the line to use each
# prompt's own value.
max_tokens: [30, 50, 80, 150]

# baseline: icecubes         # the variant listed first in every table and compared against;
                              # default: icecubes when there is one, else the first prompt
# model: gpt-4o-mini          # when set, replaces every prompt's own `model`
# base_url: http://127.0.0.1:8080/v1   # an OpenAI-compatible server; default https://api.openai.com/v1
# api_key_env: OPENAI_API_KEY # the environment variable holding the key (never put a key here)
# provider: openai            # openai, azure, proxy or mock; default: openai when a key or base URL is set
# token_field: auto           # auto, max_tokens or max_completion_tokens

concurrency: 4                # most requests in flight; fewer after a 429, growing back
repeats: 1                    # times each question is asked
timeout: 120                  # seconds per request before it is abandoned (and retried)
max_retries: 4                # retries of a retryable failure (429, 5xx, timeouts); 0 for none
# rpm: 500                    # at most this many requests per minute
# tpm: 200000                 # at most this many (estimated) tokens per minute
# deadline: 30m               # stop the run after this long, with an incomplete report

# Cost (docs/cost.md). `altbench plan` shows what a run would send and spend first.
# detail: low                 # image detail for every prompt: low, high or auto (low is cheapest)
# max_cost: 5                 # USD: refuse to start above it, stop before passing it
# prices:                     # USD per million tokens, over the built-in OpenAI list prices
#   gpt-4o-mini: {input: 0.15, cached_input: 0.075, output: 0.60}   # (2025-08; check them)
#   batch_discount: 0.5

# Azure OpenAI (docs/azure.md); the key stays in AZURE_OPENAI_API_KEY.
# azure:
#   endpoint: https://my-resource.openai.azure.com
#   deployment: alt-text
#   api_version: 2024-10-21

# The vision-model judge for `altbench run --judge` and `altbench judge` (docs/judge.md). An
# offline run gets the mock judge; any other needs a model, preferably of another family.
# judge:
#   model: gpt-4o             # or --judge-model
#   base_url: https://api.openai.com/v1   # default: where the run's model is reached
#   api_key_env: JUDGE_API_KEY  # default: the run's key variable (never put a key here)
#   rubric: judges/mine.md    # or --judge-rubric; default: the built-in rubric, which
                              # `altbench judge --show-rubric` prints to start from
#   max_tokens: 400           # the judge's token limit (16 to 4096)
#   repeats: 1                # verdicts per answer, to measure the judge's stability (1 to 10)
#   structured_output: true   # ask for the verdict's JSON schema (response_format)

brevity_budget: 150           # characters an answer may use and still count as brief
platform_limit: 1500          # Mastodon's limit on a media description

# What `altbench check --baseline FILE` holds a run to, per variant and max_tokens. Rates are
# shares: 0.02 is 2 points.
check:
  max_error_rise: 0           # the share of failed trials (no answer) may not rise
  max_quality_drop: 0.02      # mean composite quality may fall at most this much
  max_first_person_rise: 0    # the first-person rate may not rise
  max_refusal_rise: 0         # the refusal rate may not rise
  max_truncation_rise: 0.02   # the truncated rate may rise at most 2 points
  max_judge_accuracy_drop: 0.05  # mean judge accuracy may fall at most this much (judged baselines only)
  fail_on_significant: true   # any significant paired regression (p < alpha) fails
  alpha: 0.05
"""# + "\n"

    static let icecubesText = #"""
---
# Ice Cubes' alt-text request as the app sends it today
# (Packages/NetworkClient/Sources/NetworkClient/OpenAIClient.swift in Dimillian/IceCubesApp):
# no temperature, no detail, no system message.
name: icecubes
description: >-
  The baseline: Ice Cubes' alt-text request exactly as the app sends it, with its 50-token
  limit. The other variants each test one change against it.
model: gpt-4o-mini
max_tokens: 50
---
What’s in this image? Be brief, it's for image alt description on a social network. Don't write in the first person.
"""# + "\n"

    static let oneSentenceText = #"""
---
name: one-sentence
description: >-
  Single sentence. Hypothesis: asking for exactly one sentence keeps answers short and
  complete, so that 50 tokens no longer cut them off mid-sentence.
model: gpt-4o-mini
max_tokens: 50
---
Describe this image in one complete sentence, as alt text for a social network. Don't write in the first person.
"""# + "\n"

    static let datasetsReadmeText = #"""
# datasets

A dataset is a folder of images, with an optional `manifest.jsonl` saying what each image
shows. `dataset:` in `altbench.yml` names the one `altbench run` uses (`datasets/sample`
until you change it); `altbench run --dataset DIR` picks another for one run.

To try altbench before making your own, run `altbench init --sample` in an empty folder: it
writes this starting point with altbench's 27-image sample in `datasets/sample`.

## From your own images

1. Put the images in a folder of their own, such as `datasets/mine/`: PNG, JPEG, WEBP or
   GIF (not animated), at most 20 MB each. A bare folder of images is already a dataset: each
   image's id is its file name without the extension.
2. Say what each image shows in `datasets/mine/manifest.jsonl`, one JSON object a line, so
   that answers are scored for content as well as form:

   ```json
   {"id": "sofa-cat", "image": "sofa-cat.jpg", "references": ["A tabby cat asleep on a green velvet sofa."], "must_mention": ["cat", "sofa"], "context": "She has claimed the new sofa.", "lang": "en"}
   ```

   `id` and `image` are required. `references` are alt texts written by a person (the
   offline mock answers with the first); `expected_text` is text visible in the image,
   transcribed exactly; `must_mention` lists terms a good description names; `context` is
   the post the image is attached to and `lang` its language (`en`, `fr`, `pt-BR`);
   `decorative: true` marks an image that needs no description; `tags` are free labels.
3. Check it: `altbench datasets validate datasets/mine` lists every problem at once, each
   naming the manifest line or image and the fix; `--strict` also fails on warnings (unused
   images, references that read like bad alt text).
4. Set `dataset: datasets/mine` in `altbench.yml`, then `altbench plan` (what a run would
   send and cost) and `altbench run`.

## Generated images

`altbench datasets generate SPEC --out datasets/generated` makes a dataset from a YAML spec,
one image request per item (the Images API, a team's signed proxy, or an offline mock that
draws placeholders):

```yaml
model: gpt-image-1
size: 1024x1024
items:
  - id: bakery-sign
    prompt: A hand-painted wooden sign reading "FRESH BREAD DAILY" above a bakery window
    expected_text: FRESH BREAD DAILY
    references: ["A hand-painted sign reading FRESH BREAD DAILY above a bakery window."]
```

Every generated image is marked `"reviewed": false` until a person has looked at it and
corrected its fields; `datasets validate` warns about unreviewed images and `--strict` fails
on them.
"""# + "\n"
}
