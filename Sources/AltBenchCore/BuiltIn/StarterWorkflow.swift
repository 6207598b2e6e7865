import Foundation

extension StarterFiles {
    /// The GitHub Actions workflow `altbench init --ci` writes: the same text as
    /// `examples/ci/altbench.yml` (a test keeps them so).
    package static let workflow = workflowText

    static let workflowText = #"""
# altbench in GitHub Actions: copy to .github/workflows/altbench.yml (`altbench init --ci`
# writes this file there).
#
# altbench's GitHub Action installs the release archive for the runner (checksum verified,
# cached) and puts `altbench` on PATH: no Swift toolchain, no build, about ten seconds.
#
# On every pull request that touches the prompts, the dataset or the settings, altbench runs
# the prompts against the model, checks the answers against the committed baseline
# (results/baseline.json, written by `altbench baseline save`) and fails the build on a
# regression. The verdict and its tables appear in the job's summary, and each
# (variant, max_tokens, check) appears as a test case.
#
# The API key lives in the repository secret OPENAI_API_KEY and is never printed. A team that
# keeps the OpenAI key on its signed proxy instead (altbench's docs/proxy.md) sets `proxy: {url: ...}` in
# altbench.yml and the secret ALTBENCH_PROXY_APP_KEY: CI then holds only the app key, which
# mints 15-minute session tokens and can be rotated on the proxy alone. Pull
# requests from forks get no secrets: they replay the answers stored by the last run on
# main (`--offline`), which covers every trial whose prompt did not change; a changed prompt
# cannot be replayed, so its trials fail, the job lists them, and the check fails on them
# (exit 1: the share of failed trials may not rise). A maintainer can then run the workflow
# on a branch of this repository.
#
# `altbench run` exits 3 when some trials failed; the run steps let that through so that
# the check, which holds failed trials to the baseline's (`check: max_error_rise`), decides.
# Exit status of `altbench check`: 0 pass, 1 regression (including failed trials), 2
# misconfiguration (a baseline of another provider, model or dataset, a mock run, an
# unfinished run).
name: altbench

on:
  pull_request:
    paths: ["prompts/**", "datasets/**", "altbench.yml", "results/baseline.json"]
  push:
    branches: [main]
    paths: ["prompts/**", "datasets/**", "altbench.yml", "results/baseline.json"]

permissions:
  contents: read
  checks: write # lets the JUnit step annotate the pull request

jobs:
  alt-text:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    env:
      # Empty on pull requests from forks, which decides live run or replay below.
      OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}
      # Set it (and `proxy: {url: ...}` in altbench.yml) to run through the team's signed
      # proxy; then OPENAI_API_KEY is not needed.
      ALTBENCH_PROXY_APP_KEY: ${{ secrets.ALTBENCH_PROXY_APP_KEY }}
    steps:
      - uses: actions/checkout@v4

      - name: Install altbench
        uses: altbench/altbench@v0.1.0

      - name: Restore the answers of the last run on main
        uses: actions/cache/restore@v4
        with:
          path: results/altbench.sqlite
          key: altbench-store-${{ github.sha }}
          restore-keys: altbench-store-

      - name: Run the prompts against the model
        if: env.OPENAI_API_KEY != '' && env.ALTBENCH_PROXY_APP_KEY == ''
        run: altbench run --provider openai || test $? -eq 3

      - name: Run the prompts through the team's signed proxy (proxy.url in altbench.yml)
        if: env.ALTBENCH_PROXY_APP_KEY != ''
        run: altbench run --provider proxy || test $? -eq 3

      - name: Replay stored answers (pull request from a fork, no key)
        if: env.OPENAI_API_KEY == '' && env.ALTBENCH_PROXY_APP_KEY == ''
        run: altbench run --offline || test $? -eq 3

      - name: Check against the baseline
        run: |
          altbench check --baseline results/baseline.json \
            --junit results/altbench-junit.xml

      - name: Report the checks as tests
        if: always() && hashFiles('results/altbench-junit.xml') != ''
        uses: mikepenz/action-junit-report@v5
        with:
          report_paths: results/altbench-junit.xml
          check_name: altbench check

      # The HTML report links the dataset's images by path; an uploaded copy has no dataset
      # beside it, so the images go inside the file.
      - name: Write the HTML report with its images inside
        if: always() && hashFiles('results/altbench.sqlite') != ''
        run: altbench report --format html --embed-images

      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: altbench-results
          path: |
            results/latest.html
            results/latest.md
            results/runs/
            results/altbench-junit.xml

      - name: Store the answers for replay
        if: github.event_name == 'push' && (env.OPENAI_API_KEY != '' || env.ALTBENCH_PROXY_APP_KEY != '')
        uses: actions/cache/save@v4
        with:
          path: results/altbench.sqlite
          key: altbench-store-${{ github.sha }}
"""# + "\n"
}
