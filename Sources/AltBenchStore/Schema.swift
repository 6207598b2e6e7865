import GRDB

/// The SQLite schema, as named migrations. The README documents it for `sqlite3` users.
enum Schema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: runs, variants, items, responses, trials, scores") { db in
            try db.execute(
                sql: """
                    CREATE TABLE run (
                      id TEXT PRIMARY KEY,
                      started_at DATETIME NOT NULL,
                      finished_at DATETIME,
                      status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'stopped')),
                      status_message TEXT,
                      provider TEXT NOT NULL,
                      provider_reason TEXT NOT NULL,
                      endpoint TEXT NOT NULL,
                      dataset TEXT NOT NULL,
                      prompts TEXT NOT NULL,
                      settings TEXT NOT NULL,
                      planned_trials INTEGER NOT NULL,
                      altbench_version TEXT NOT NULL
                    );
                    CREATE TABLE variant (
                      id INTEGER PRIMARY KEY,
                      run_id TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                      position INTEGER NOT NULL,
                      name TEXT NOT NULL,
                      file TEXT NOT NULL,
                      file_sha256 TEXT NOT NULL,
                      prompt TEXT NOT NULL,
                      model TEXT,
                      max_tokens TEXT,
                      detail TEXT,
                      temperature REAL,
                      system TEXT,
                      UNIQUE (run_id, name)
                    );
                    CREATE TABLE item (
                      id INTEGER PRIMARY KEY,
                      run_id TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                      position INTEGER NOT NULL,
                      item_key TEXT NOT NULL,
                      image TEXT NOT NULL,
                      image_path TEXT,
                      image_sha256 TEXT,
                      format TEXT,
                      width INTEGER,
                      height INTEGER,
                      bytes INTEGER,
                      problem TEXT,
                      reference_texts TEXT NOT NULL,
                      context TEXT,
                      lang TEXT,
                      tags TEXT NOT NULL,
                      UNIQUE (run_id, item_key)
                    );
                    CREATE TABLE response (
                      id INTEGER PRIMARY KEY,
                      cache_key TEXT NOT NULL,
                      endpoint TEXT NOT NULL,
                      model TEXT NOT NULL,
                      request TEXT NOT NULL,
                      content TEXT,
                      refusal TEXT,
                      finish_reason TEXT,
                      response_model TEXT,
                      response_id TEXT,
                      request_id TEXT,
                      system_fingerprint TEXT,
                      prompt_tokens INTEGER,
                      completion_tokens INTEGER,
                      total_tokens INTEGER,
                      reasoning_tokens INTEGER,
                      token_field TEXT,
                      latency_ms REAL NOT NULL,
                      raw_body TEXT,
                      created_at DATETIME NOT NULL
                    );
                    CREATE INDEX response_cache_key ON response (cache_key, id);
                    CREATE TABLE trial (
                      id INTEGER PRIMARY KEY,
                      run_id TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                      variant_id INTEGER NOT NULL REFERENCES variant(id) ON DELETE CASCADE,
                      item_id INTEGER NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                      max_tokens INTEGER,
                      repeat_index INTEGER NOT NULL,
                      model TEXT,
                      cache_key TEXT,
                      response_id INTEGER REFERENCES response(id),
                      status TEXT NOT NULL CHECK (status IN ('answered', 'failed')),
                      cached BOOLEAN NOT NULL,
                      attempts INTEGER NOT NULL,
                      error_kind TEXT,
                      error_status INTEGER,
                      error_code TEXT,
                      error TEXT,
                      started_at DATETIME NOT NULL,
                      finished_at DATETIME NOT NULL
                    );
                    CREATE INDEX trial_run ON trial (run_id);
                    CREATE TABLE score (
                      trial_id INTEGER NOT NULL REFERENCES trial(id) ON DELETE CASCADE,
                      name TEXT NOT NULL,
                      value REAL NOT NULL,
                      passed BOOLEAN,
                      detail TEXT,
                      PRIMARY KEY (trial_id, name)
                    ) WITHOUT ROWID;
                    """)
            try db.execute(sql: trialResultViewV1)
        }
        // A database made by v1 gains the column in place; its variants read back with none.
        migrator.registerMigration("v2: variant description") { db in
            try db.execute(sql: "ALTER TABLE variant ADD COLUMN description TEXT")
        }
        // `--resume` and re-asked failures replace a trial's row by its coordinates; deleting
        // runs and answers (`cache prune`) follows the foreign keys from the other side.
        migrator.registerMigration("v3: trial indexes") { db in
            try db.execute(
                sql: """
                    CREATE INDEX trial_coordinates ON trial (run_id, variant_id, item_id, max_tokens, repeat_index);
                    CREATE INDEX trial_variant ON trial (variant_id);
                    CREATE INDEX trial_item ON trial (item_id);
                    CREATE INDEX trial_response ON trial (response_id);
                    """)
        }
        // The full scorer set: `chars` is now `length`, items keep what the dataset-aware scorers
        // read, and the view gains a column per score id.
        migrator.registerMigration("v4: score ids, item text fields") { db in
            try db.execute(
                sql: """
                    UPDATE score SET name = 'length' WHERE name = 'chars';
                    ALTER TABLE item ADD COLUMN expected_text TEXT;
                    ALTER TABLE item ADD COLUMN must_mention TEXT;
                    DROP VIEW trial_result;
                    """)
            try db.execute(sql: trialResultView(withCost: false))
        }
        // What stopped a stopped run, so a report can say whether --resume helps.
        migrator.registerMigration("v5: what stopped a run") { db in
            try db.execute(
                sql: """
                    ALTER TABLE run ADD COLUMN stopped_by TEXT
                      CHECK (stopped_by IN ('configuration', 'interrupt', 'deadline', 'server_lost'));
                    """)
        }
        // Images made by `altbench datasets generate`, cached by a key over the request, like
        // answers: one row per image of a request (a request with n > 1 has n rows).
        migrator.registerMigration("v6: generated images") { db in
            try db.execute(
                sql: """
                    CREATE TABLE generation (
                      id INTEGER PRIMARY KEY,
                      cache_key TEXT NOT NULL,
                      image_index INTEGER NOT NULL,
                      endpoint TEXT NOT NULL,
                      model TEXT NOT NULL,
                      request_json TEXT NOT NULL,
                      image BLOB NOT NULL,
                      image_sha256 TEXT NOT NULL,
                      format TEXT NOT NULL,
                      revised_prompt TEXT,
                      created INTEGER,
                      generated_at TEXT NOT NULL,
                      UNIQUE (cache_key, image_index)
                    );
                    """)
        }
        // Token and cost accounting: what the server reported beyond prompt and completion
        // tokens, the plan's estimate for each trial (to compare with the report), and what
        // each trial cost. A run can now stop at its spending limit (`cost_limit`); SQLite
        // cannot change a CHECK in place, so `run` is rebuilt with the same rows (GRDB runs
        // migrations with foreign keys off, so the rows that point at runs stay as they are).
        migrator.registerMigration("v7: usage, estimates and cost") { db in
            try db.execute(
                sql: """
                    ALTER TABLE response ADD COLUMN cached_tokens INTEGER;
                    ALTER TABLE response ADD COLUMN image_tokens INTEGER;
                    ALTER TABLE trial ADD COLUMN estimated_input_tokens INTEGER;
                    ALTER TABLE trial ADD COLUMN estimated_image_tokens INTEGER;
                    ALTER TABLE trial ADD COLUMN cost_usd REAL;
                    CREATE TABLE run_v7 (
                      id TEXT PRIMARY KEY,
                      started_at DATETIME NOT NULL,
                      finished_at DATETIME,
                      status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'stopped')),
                      status_message TEXT,
                      provider TEXT NOT NULL,
                      provider_reason TEXT NOT NULL,
                      endpoint TEXT NOT NULL,
                      dataset TEXT NOT NULL,
                      prompts TEXT NOT NULL,
                      settings TEXT NOT NULL,
                      planned_trials INTEGER NOT NULL,
                      altbench_version TEXT NOT NULL,
                      stopped_by TEXT
                        CHECK (stopped_by IN ('configuration', 'interrupt', 'deadline', 'server_lost', 'cost_limit'))
                    );
                    INSERT INTO run_v7 (id, started_at, finished_at, status, status_message, provider, provider_reason,
                      endpoint, dataset, prompts, settings, planned_trials, altbench_version, stopped_by)
                    SELECT id, started_at, finished_at, status, status_message, provider, provider_reason, endpoint,
                      dataset, prompts, settings, planned_trials, altbench_version, stopped_by
                    FROM run;
                    DROP TABLE run;
                    ALTER TABLE run_v7 RENAME TO run;
                    DROP VIEW trial_result;
                    """)
            try db.execute(sql: trialResultView(withCost: true))
        }
        // The judge's answers are chat completions like the model's, so they live in
        // `response` (found again by cache key); `judgement` ties each to the trial it judged
        // with the verdict read from it, or why there is none.
        migrator.registerMigration("v8: judgements, form and content") { db in
            try db.execute(
                sql: """
                    CREATE TABLE judgement (
                      id INTEGER PRIMARY KEY,
                      trial_id INTEGER NOT NULL REFERENCES trial(id) ON DELETE CASCADE,
                      repeat_index INTEGER NOT NULL,
                      model TEXT NOT NULL,
                      endpoint TEXT NOT NULL,
                      rubric TEXT NOT NULL,
                      rubric_sha256 TEXT NOT NULL,
                      cache_key TEXT NOT NULL,
                      response_id INTEGER REFERENCES response(id),
                      status TEXT NOT NULL CHECK (status IN ('judged', 'unreadable', 'failed')),
                      cached BOOLEAN NOT NULL,
                      attempts INTEGER NOT NULL,
                      accuracy INTEGER,
                      completeness INTEGER,
                      concision INTEGER,
                      errors TEXT,
                      error TEXT,
                      cost_usd REAL,
                      started_at DATETIME NOT NULL,
                      finished_at DATETIME NOT NULL,
                      UNIQUE (trial_id, repeat_index)
                    );
                    CREATE INDEX judgement_response ON judgement (response_id);
                    DROP VIEW trial_result;
                    """)
            try db.execute(sql: trialResultView(withCost: true))
        }
        migrator.registerMigration("v9: Batch API input files and batches") { db in
            try db.execute(
                sql: """
                    CREATE TABLE batch_input (
                      run_id TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                      purpose TEXT NOT NULL CHECK (purpose IN ('trials', 'judge')),
                      sequence INTEGER NOT NULL,
                      generation INTEGER NOT NULL,
                      model TEXT NOT NULL,
                      lines INTEGER NOT NULL,
                      bytes INTEGER NOT NULL,
                      upload_name TEXT NOT NULL,
                      file_id TEXT,
                      written_at DATETIME NOT NULL,
                      uploaded_at DATETIME,
                      PRIMARY KEY (run_id, purpose, sequence)
                    );
                    CREATE TABLE batch_request (
                      run_id TEXT NOT NULL,
                      purpose TEXT NOT NULL,
                      sequence INTEGER NOT NULL,
                      custom_id TEXT NOT NULL,
                      PRIMARY KEY (run_id, purpose, sequence, custom_id),
                      FOREIGN KEY (run_id, purpose, sequence) REFERENCES batch_input(run_id, purpose, sequence)
                        ON DELETE CASCADE
                    );
                    CREATE TABLE batch_job (
                      batch_id TEXT PRIMARY KEY,
                      run_id TEXT NOT NULL,
                      purpose TEXT NOT NULL,
                      sequence INTEGER NOT NULL,
                      status TEXT NOT NULL,
                      total INTEGER,
                      completed INTEGER,
                      failed INTEGER,
                      output_file_id TEXT,
                      error_file_id TEXT,
                      created_at DATETIME NOT NULL,
                      expires_at DATETIME,
                      checked_at DATETIME,
                      imported_at DATETIME,
                      message TEXT,
                      FOREIGN KEY (run_id, purpose, sequence) REFERENCES batch_input(run_id, purpose, sequence)
                        ON DELETE CASCADE
                    );
                    CREATE INDEX batch_job_run ON batch_job (run_id, purpose);
                    ALTER TABLE trial ADD COLUMN batch_id TEXT;
                    """)
        }
        return migrator
    }

    /// The score ids that are columns of `trial_result`, in report order. `refusal` is
    /// `refused` there, since `refusal_text` holds the model's refusal message.
    static let viewScoreColumns: [(name: String, column: String)] = [
        ("quality", "quality"), ("length", "length"), ("words", "words"), ("brevity", "brevity"),
        ("empty", "empty"), ("over_limit", "over_limit"), ("first_person", "first_person"),
        ("perception_meta", "perception_meta"), ("redundant_prefix", "redundant_prefix"),
        ("meta_label", "meta_label"), ("refusal", "refused"), ("truncated", "truncated"),
        ("terminal_punctuation", "terminal_punctuation"), ("filename", "filename"), ("markdown", "markdown"),
        ("emoji", "emoji"), ("social_tokens", "social_tokens"), ("hedging", "hedging"),
        ("readability", "readability"), ("text_recall", "text_recall"), ("keyword_recall", "keyword_recall"),
        ("context_echo", "context_echo"), ("bleu4", "bleu4"), ("rougeL", "rougeL"), ("ciderD", "ciderD"),
        ("reference_match", "reference_match"), ("form", "form"), ("content", "content_score"),
        ("judge_accuracy", "judge_accuracy"), ("judge_completeness", "judge_completeness"),
        ("judge_concision", "judge_concision"),
    ]

    /// One row per trial with its variant, item, answer and every score as a column; with
    /// `withCost` (migration v7) also the usage details, the plan's estimate and the cost.
    static func trialResultView(withCost: Bool) -> String {
        """
        CREATE VIEW trial_result AS
        SELECT
          t.run_id,
          t.id AS trial_id,
          v.name AS variant,
          t.max_tokens,
          i.item_key AS item,
          t.repeat_index,
          t.model,
          t.status,
          t.cached,
          t.error,
          r.content,
          r.refusal AS refusal_text,
          r.finish_reason,
          r.prompt_tokens,
          r.completion_tokens,
        \(withCost ? "  r.cached_tokens,\n  r.image_tokens,\n  t.estimated_input_tokens,\n  t.cost_usd," : "")
          r.latency_ms,
        \(viewScoreColumns.map { "  MAX(CASE s.name WHEN '\($0.name)' THEN s.value END) AS \($0.column)" }
            .joined(separator: ",\n"))
        FROM trial t
        JOIN variant v ON v.id = t.variant_id
        JOIN item i ON i.id = t.item_id
        LEFT JOIN response r ON r.id = t.response_id
        LEFT JOIN score s ON s.trial_id = t.id
        GROUP BY t.id
        """
    }

    /// One row per trial with its variant, item, answer and the v1 scores as columns (migration v1).
    static let trialResultViewV1 = """
        CREATE VIEW trial_result AS
        SELECT
          t.run_id,
          t.id AS trial_id,
          v.name AS variant,
          t.max_tokens,
          i.item_key AS item,
          t.repeat_index,
          t.model,
          t.status,
          t.cached,
          t.error,
          r.content,
          r.refusal AS refusal_text,
          r.finish_reason,
          r.prompt_tokens,
          r.completion_tokens,
          r.latency_ms,
          MAX(CASE s.name WHEN 'chars' THEN s.value END) AS chars,
          MAX(CASE s.name WHEN 'words' THEN s.value END) AS words,
          MAX(CASE s.name WHEN 'brevity' THEN s.value END) AS brevity,
          MAX(CASE s.name WHEN 'empty' THEN s.value END) AS empty,
          MAX(CASE s.name WHEN 'over_limit' THEN s.value END) AS over_limit,
          MAX(CASE s.name WHEN 'first_person' THEN s.value END) AS first_person,
          MAX(CASE s.name WHEN 'truncated' THEN s.value END) AS truncated,
          MAX(CASE s.name WHEN 'refusal' THEN s.value END) AS refused,
          MAX(CASE s.name WHEN 'redundant_prefix' THEN s.value END) AS redundant_prefix
        FROM trial t
        JOIN variant v ON v.id = t.variant_id
        JOIN item i ON i.id = t.item_id
        LEFT JOIN response r ON r.id = t.response_id
        LEFT JOIN score s ON s.trial_id = t.id
        GROUP BY t.id
        """
}
