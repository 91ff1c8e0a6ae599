"""Versioned schema of the embedded SQLite store.

Each migration is a script of idempotent statements (``IF NOT EXISTS``) run in one
immediate transaction, so several processes opening a fresh file at once all end up
with the same schema. Append new migrations; never edit an applied one.
"""

from __future__ import annotations

from ..clock import UTC_OFFSET_KEY
from ..errors import ConfigurationError
from .sqlite_driver import sqlite3

__all__ = ["MIGRATIONS", "apply_migration", "migrate", "schema_version", "statements"]

_V1 = """
CREATE TABLE IF NOT EXISTS memories (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    memory_type   TEXT NOT NULL,
    title         TEXT NOT NULL,
    text          TEXT NOT NULL,
    importance    REAL NOT NULL,
    status        TEXT NOT NULL,
    created_at    REAL NOT NULL,
    event_time    REAL,
    last_accessed REAL,
    access_count  INTEGER NOT NULL DEFAULT 0,
    valid_from    REAL,
    invalid_at    REAL,
    session_id    TEXT,
    source        TEXT,
    attributes    TEXT NOT NULL DEFAULT '{}',
    metadata      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS memories_user_status ON memories(user_id, status, created_at);
CREATE INDEX IF NOT EXISTS memories_user_created ON memories(user_id, created_at);

-- Subject / Topic / Object / Value nodes; degree = how many memories include the node.
CREATE TABLE IF NOT EXISTS nodes (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    kind        TEXT NOT NULL,
    content     TEXT NOT NULL,
    norm        TEXT NOT NULL,
    created_at  REAL NOT NULL,
    merged_from TEXT NOT NULL DEFAULT '[]',
    degree      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS nodes_user_kind_norm ON nodes(user_id, kind, norm);

-- (Memory)-[:INCLUDES]->(node)
CREATE TABLE IF NOT EXISTS memory_nodes (
    memory_id TEXT NOT NULL,
    node_id   TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    PRIMARY KEY (memory_id, node_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_nodes_node ON memory_nodes(node_id, memory_id);

-- MEMORY_TYPE / CORE_RELATION / ATTRIBUTE edges between nodes, owned by a memory.
CREATE TABLE IF NOT EXISTS edges (
    id        INTEGER PRIMARY KEY,
    user_id   TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    src_id    TEXT NOT NULL,
    dst_id    TEXT NOT NULL,
    type      TEXT NOT NULL,
    label     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS edges_memory ON edges(memory_id);
CREATE INDEX IF NOT EXISTS edges_src ON edges(src_id);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst_id);

-- Memory-to-memory links: CAUSES, REFERS_TO, RELATED_TO, CONFLICTS_WITH, SUPERSEDES.
CREATE TABLE IF NOT EXISTS links (
    source_id  TEXT NOT NULL,
    target_id  TEXT NOT NULL,
    type       TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    importance REAL NOT NULL,
    discovered INTEGER NOT NULL,
    confidence REAL NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (source_id, target_id, type)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_target ON links(target_id, source_id);
CREATE INDEX IF NOT EXISTS links_user ON links(user_id);

CREATE TABLE IF NOT EXISTS episodes (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL,
    session_id   TEXT,
    text         TEXT NOT NULL,
    speaker      TEXT,
    timestamp    REAL NOT NULL,
    keywords     TEXT NOT NULL DEFAULT '[]',
    importance   REAL NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    metadata     TEXT NOT NULL DEFAULT '{}',
    next_id      TEXT
);
CREATE INDEX IF NOT EXISTS episodes_user_session ON episodes(user_id, session_id, timestamp);

CREATE TABLE IF NOT EXISTS knowledge_versions (
    version_id TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    session_id TEXT,
    created_at REAL NOT NULL,
    seq        INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_versions_user ON knowledge_versions(user_id, seq);

CREATE TABLE IF NOT EXISTS knowledge (
    id         TEXT PRIMARY KEY,
    version_id TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    content    TEXT NOT NULL,
    type       TEXT NOT NULL,
    score      REAL NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    position   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_version ON knowledge(version_id, position);

-- Embeddings as float32 blobs, one row per (kind, ref_id). AUTOINCREMENT so a rowid is
-- never reused: the in-memory matrix cache reloads only rows above what it has seen.
CREATE TABLE IF NOT EXISTS vectors (
    rowid     INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    ref_id    TEXT NOT NULL,
    embedding BLOB NOT NULL,
    UNIQUE (kind, ref_id)
);
CREATE INDEX IF NOT EXISTS vectors_user_kind ON vectors(user_id, kind, rowid);

-- A version counter per (user, kind), bumped by triggers, tells caches when to reload.
CREATE TABLE IF NOT EXISTS vector_versions (
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    version INTEGER NOT NULL,
    deletes INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS vectors_ai AFTER INSERT ON vectors BEGIN
    INSERT INTO vector_versions(user_id, kind, version, deletes) VALUES (new.user_id, new.kind, 1, 0)
    ON CONFLICT(user_id, kind) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER IF NOT EXISTS vectors_ad AFTER DELETE ON vectors BEGIN
    UPDATE vector_versions SET version = version + 1, deletes = deletes + 1
    WHERE user_id = old.user_id AND kind = old.kind;
END;

-- Lexical index: pre-tokenised text (jieba for Chinese) in FTS5. The utok column holds
-- a hash token of the user id so a MATCH only ever scans that user's documents.
CREATE TABLE IF NOT EXISTS lexical_docs (
    rowid   INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    ref_id  TEXT NOT NULL,
    UNIQUE (kind, ref_id)
);
CREATE VIRTUAL TABLE IF NOT EXISTS lexical USING fts5(
    tokens, utok, tokenize = 'unicode61 remove_diacritics 2'
);
"""

# v2: a queue of items waiting for a vector, kept by triggers in the same transaction as
# the writes, so the background embedder finds work in O(batch) instead of anti-joining
# every table (which grew to seconds at 100,000 memories).
_V2 = """
CREATE TABLE IF NOT EXISTS pending_vectors (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    ref_id  TEXT NOT NULL,
    text    TEXT NOT NULL,
    UNIQUE (kind, ref_id)
);
CREATE INDEX IF NOT EXISTS pending_vectors_user ON pending_vectors(user_id, seq);

CREATE TRIGGER IF NOT EXISTS memories_pending AFTER INSERT ON memories BEGIN
    INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
    VALUES (new.user_id, 'memory', new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS nodes_pending AFTER INSERT ON nodes
WHEN new.kind IN ('Topic', 'Object') BEGIN
    INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
    VALUES (new.user_id, lower(new.kind), new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS episodes_pending AFTER INSERT ON episodes BEGIN
    INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
    VALUES (new.user_id, 'episode', new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS knowledge_pending AFTER INSERT ON knowledge BEGIN
    INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
    VALUES (new.user_id, 'knowledge', new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS vectors_done AFTER INSERT ON vectors BEGIN
    DELETE FROM pending_vectors WHERE kind = new.kind AND ref_id = new.ref_id;
END;
CREATE TRIGGER IF NOT EXISTS memories_gone AFTER DELETE ON memories BEGIN
    DELETE FROM pending_vectors WHERE kind = 'memory' AND ref_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS nodes_gone AFTER DELETE ON nodes BEGIN
    DELETE FROM pending_vectors WHERE kind IN ('topic', 'object') AND ref_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS episodes_gone AFTER DELETE ON episodes BEGIN
    DELETE FROM pending_vectors WHERE kind = 'episode' AND ref_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS knowledge_gone AFTER DELETE ON knowledge BEGIN
    DELETE FROM pending_vectors WHERE kind = 'knowledge' AND ref_id = old.id;
END;

-- backfill what an earlier version stored without a vector
INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
SELECT t.user_id, 'memory', t.id, t.text FROM memories t
 WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.kind = 'memory' AND v.ref_id = t.id);
INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
SELECT t.user_id, lower(t.kind), t.id, t.content FROM nodes t
 WHERE t.kind IN ('Topic', 'Object')
   AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.kind = lower(t.kind) AND v.ref_id = t.id);
INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
SELECT t.user_id, 'episode', t.id, t.text FROM episodes t
 WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.kind = 'episode' AND v.ref_id = t.id);
INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
SELECT t.user_id, 'knowledge', t.id, t.content FROM knowledge t
 WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.kind = 'knowledge' AND v.ref_id = t.id);
"""

# v3: an episode is embedded with its speaker ("Caroline: I went to ..."): questions name
# people, and a turn's text alone does not say who said it. Stored text is unchanged.
_V3 = """
DROP TRIGGER IF EXISTS episodes_pending;
CREATE TRIGGER episodes_pending AFTER INSERT ON episodes BEGIN
    INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
    VALUES (new.user_id, 'episode', new.id, COALESCE(new.speaker || ': ', '') || new.text);
END;
"""

# v4: the audit log of forgetting (no content), and media encoders' vectors, kept apart
# from the text vectors because their dimension is the encoder's.
_V4 = """
CREATE TABLE IF NOT EXISTS audit_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    user_id     TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_kind TEXT NOT NULL,
    target_ids  TEXT NOT NULL,
    at          REAL NOT NULL,
    actor       TEXT,
    counts      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS audit_log_user ON audit_log(user_id, seq);

CREATE TABLE IF NOT EXISTS media_vectors (
    ref_id    TEXT NOT NULL,
    modality  TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    model     TEXT NOT NULL,
    embedding BLOB NOT NULL,
    PRIMARY KEY (ref_id, modality)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS media_vectors_user ON media_vectors(user_id, modality, model);
CREATE TRIGGER IF NOT EXISTS episodes_media_gone AFTER DELETE ON episodes BEGIN
    DELETE FROM media_vectors WHERE ref_id = old.id;
END;
"""

# v5: an episode is embedded after the turn before it in its session (contextual
# indexing, ``episode_embedding_text``); the text is put together when the item is
# embedded, following ``next_id``, which is indexed for that. Episodes embedded before
# without that context are queued again; their old vectors serve until replaced.
_V5 = """
CREATE INDEX IF NOT EXISTS episodes_next ON episodes(next_id);
INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
SELECT e.user_id, 'episode', e.id, COALESCE(e.speaker || ': ', '') || e.text FROM episodes e
 WHERE EXISTS (SELECT 1 FROM episodes p WHERE p.next_id = e.id) ORDER BY e.rowid;
"""

# v6: a big user's lexical search ranks from an index in memory (``lexical_cache``): it
# follows the file through a per-user count of inserted and deleted documents, finds the
# user's documents by an index, and reads each word's document count from FTS5's vocabulary.
_V6 = """
CREATE INDEX IF NOT EXISTS lexical_docs_user ON lexical_docs(user_id, rowid);
CREATE TABLE IF NOT EXISTS lexical_versions (
    user_id TEXT PRIMARY KEY,
    inserts INTEGER NOT NULL,
    deletes INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS lexical_docs_added AFTER INSERT ON lexical_docs BEGIN
    INSERT INTO lexical_versions(user_id, inserts, deletes) VALUES (new.user_id, 1, 0)
    ON CONFLICT(user_id) DO UPDATE SET inserts = inserts + 1;
END;
CREATE TRIGGER IF NOT EXISTS lexical_docs_removed AFTER DELETE ON lexical_docs BEGIN
    UPDATE lexical_versions SET deletes = deletes + 1 WHERE user_id = old.user_id;
END;
INSERT OR REPLACE INTO lexical_versions(user_id, inserts, deletes)
SELECT user_id, count(*), 0 FROM lexical_docs GROUP BY user_id;
CREATE VIRTUAL TABLE IF NOT EXISTS lexical_vocab USING fts5vocab(lexical, 'col');
"""

# v7: an episode is embedded between the turns before and after it
# (``episode_embedding_text``); episodes with a turn after them are queued again, and
# their old vectors serve until replaced.
_V7 = """
INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
SELECT user_id, 'episode', id, COALESCE(speaker || ': ', '') || text FROM episodes
 WHERE next_id IS NOT NULL ORDER BY rowid;
"""

# v8: a user's turns of one speaker are found by an index (``find_episodes``): a
# search asks whether a pasted conversation's speaker has a stored turn, and without it
# every such lookup read all of the user's turns (12 ms for 100,000).
_V8 = """
CREATE INDEX IF NOT EXISTS episodes_user_speaker ON episodes(user_id, speaker, timestamp);
"""

# v9: the users with staged memories (``users_with_staged``, asked by each consolidation
# beat) are read from an index of the staged memories alone, not from every memory's
# entry in ``memories_user_status`` (3.8 ms for 100,000 memories of 200 users). It holds
# status too, so that it covers the read and the planner takes it over the wider index.
_V9 = """
CREATE INDEX IF NOT EXISTS memories_staged ON memories(user_id, status) WHERE status = 'staged';
"""


def searchable_sql(row: str | None = None) -> str:
    """SQL true for an episode row (of the table named ``row``) that search may match:
    not marked ``"searchable": false`` (:attr:`~memory_platform.models.Episode.searchable`;
    JSON's false reads as 0)."""
    column = f"{row}.metadata" if row else "metadata"
    return f"json_extract({column}, '$.searchable') IS NOT 0"


# v10: an episode kept out of search (``"searchable": false``, a LangGraph item put with
# ``index=False``) is neither embedded nor indexed for words: it took a place among each
# channel's candidates (a search's 50 best per channel) that a searchable match then
# lacked, and cost an embedding that nothing would read; it has no lexical document, so
# it weighs in no word's statistics either. Those stored before lose both.
_V10 = f"""
DROP TRIGGER IF EXISTS episodes_pending;
CREATE TRIGGER episodes_pending AFTER INSERT ON episodes
WHEN {searchable_sql("new")} BEGIN
    INSERT OR IGNORE INTO pending_vectors(user_id, kind, ref_id, text)
    VALUES (new.user_id, 'episode', new.id, COALESCE(new.speaker || ': ', '') || new.text);
END;
CREATE TEMP TABLE _unsearchable AS
SELECT id FROM episodes WHERE NOT ({searchable_sql()});
DELETE FROM pending_vectors WHERE kind = 'episode' AND ref_id IN (SELECT id FROM _unsearchable);
DELETE FROM vectors WHERE kind = 'episode' AND ref_id IN (SELECT id FROM _unsearchable);
DELETE FROM lexical WHERE rowid IN (
    SELECT d.rowid FROM lexical_docs d
    WHERE d.kind = 'episode' AND d.ref_id IN (SELECT id FROM _unsearchable));
DELETE FROM lexical_docs WHERE kind = 'episode' AND ref_id IN (SELECT id FROM _unsearchable);
DROP TABLE _unsearchable;
"""


# v11: an episode may end (``expires_at``, a LangGraph item's TTL): from then on no search
# matches it and the daily purge deletes it. The episodes that end are found by a partial
# index of those alone, so the purge and the store's TTL sweep read no episode that never
# expires.
_V11 = """
ALTER TABLE episodes ADD COLUMN expires_at REAL;
CREATE INDEX IF NOT EXISTS episodes_expiry ON episodes(user_id, expires_at)
WHERE expires_at IS NOT NULL;
"""

# v12: FTS5 deletes a deleted document's words from its index at once (``secure-delete``,
# SQLite 3.42+, ``sqlite_driver``), where they stayed in its segments, readable in the
# file, until the segments merged; the words deleted before are merged out once. Once set,
# an FTS5 older than 3.42 (the system's ``sqlite3`` on Debian 12) no longer opens the index.
_V12 = """
INSERT INTO lexical(lexical, rank) VALUES ('secure-delete', 1);
INSERT INTO lexical(lexical) VALUES ('optimize');
"""

# v13: a knowledge version records when the last turn its extraction read was said
# (``through``), so the turns a session's extractions read are known after that turn is
# deleted; the versions made before hold none.
_V13 = """
ALTER TABLE knowledge_versions ADD COLUMN through REAL;
"""


def _told_rows(kind: str, row: str, table: str | None = None) -> str:
    """A SELECT of the (user, episode, kind, item) rows of ``told_by`` for the item
    ``row`` (every row of ``table`` when given): one per string its metadata's
    ``episode_ids`` list holds, as :func:`~memory_platform.models.episodes_named` reads it."""
    source = f"{table} AS {row}, " if table else ""
    return (
        f"SELECT {row}.user_id, j.value, '{kind}', {row}.id"
        f" FROM {source}json_each({row}.metadata, '$.episode_ids') AS j"
        f" WHERE json_type({row}.metadata, '$.episode_ids') = 'array' AND j.type = 'text'"
    )


def _told_triggers(table: str, kind: str) -> str:
    """The triggers that keep ``told_by`` following ``table``'s rows (items of ``kind``):
    their insert, the update of their metadata and their delete."""
    return f"""CREATE TRIGGER IF NOT EXISTS {table}_told AFTER INSERT ON {table} BEGIN
    INSERT OR IGNORE INTO told_by {_told_rows(kind, "new")};
END;
CREATE TRIGGER IF NOT EXISTS {table}_retold AFTER UPDATE OF metadata ON {table} BEGIN
    DELETE FROM told_by WHERE kind = '{kind}' AND ref_id = old.id;
    INSERT OR IGNORE INTO told_by {_told_rows(kind, "new")};
END;
CREATE TRIGGER IF NOT EXISTS {table}_untold AFTER DELETE ON {table} BEGIN
    DELETE FROM told_by WHERE kind = '{kind}' AND ref_id = old.id;
END;"""


# v14: forgetting a turn finds the memories and knowledge points extracted from it (those
# whose metadata names it in ``episode_ids``) by an index kept by triggers, where it read
# every memory of the user (287 ms at 10,000 memories, seconds at 100,000). Items stored
# before are indexed here.
_V14 = f"""
CREATE TABLE IF NOT EXISTS told_by (
    user_id    TEXT NOT NULL,
    episode_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    ref_id     TEXT NOT NULL,
    PRIMARY KEY (user_id, episode_id, kind, ref_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS told_by_item ON told_by(kind, ref_id);
{_told_triggers("memories", "memory")}
{_told_triggers("knowledge", "knowledge")}
INSERT OR IGNORE INTO told_by {_told_rows("memory", "m", "memories")};
INSERT OR IGNORE INTO told_by {_told_rows("knowledge", "k", "knowledge")};
"""

# v15: the clock a call that names none is read on, asked at every tool call and search
# (``GraphStore.latest_offset``): the latest of a user's turns that record one, found by an
# index of those turns alone, where the user's turns were read newest first until one did
# (every turn of a user whose turns name no clock: 30 ms at 100,000).
CLOCKED_SQL = f"json_extract(metadata, '$.{UTC_OFFSET_KEY}') IS NOT NULL"
"""An episode row that records the clock it was said on: the condition of the partial index
``episodes_clock``, which a query names word for word to be served by it."""

_V15 = f"""
CREATE INDEX IF NOT EXISTS episodes_clock ON episodes(user_id, timestamp) WHERE {CLOCKED_SQL};
"""

MIGRATIONS: tuple[str, ...] = (
    _V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10, _V11, _V12, _V13, _V14, _V15,
)  # fmt: skip
"""Migration ``i`` takes the schema from version ``i`` to ``i + 1``."""

SPOKEN_LINE_SQL = "COALESCE(speaker || ': ', '') || text"
"""An episode row's turn as said (``store.base.spoken_line``): the text a queued episode
carries; the turns around it are added when it is embedded (``_PENDING_SQL``)."""

REQUEUE_ALL: tuple[str, ...] = (
    "DELETE FROM vectors",
    "DELETE FROM pending_vectors",
    "INSERT INTO pending_vectors(user_id, kind, ref_id, text)"
    " SELECT user_id, 'memory', id, text FROM memories ORDER BY rowid",
    "INSERT INTO pending_vectors(user_id, kind, ref_id, text)"
    " SELECT user_id, lower(kind), id, content FROM nodes"
    " WHERE kind IN ('Topic', 'Object') ORDER BY rowid",
    "INSERT INTO pending_vectors(user_id, kind, ref_id, text)"
    f" SELECT user_id, 'episode', id, {SPOKEN_LINE_SQL} FROM episodes"
    f" WHERE {searchable_sql()} ORDER BY rowid",
    "INSERT INTO pending_vectors(user_id, kind, ref_id, text)"
    " SELECT user_id, 'knowledge', id, content FROM knowledge ORDER BY rowid",
)
"""Statements that drop every vector and queue every item for embedding (``reembed``)."""


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the file (0 for a fresh file)."""
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def statements(script: str) -> list[str]:
    """A migration's statements, one by one (a trigger's body stays whole): SQLite says
    when a statement is complete."""
    out: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"an incomplete statement in a migration: {pending.strip()[:80]!r}")
    return out


def apply_migration(conn: sqlite3.Connection, version: int) -> bool:
    """Migration ``version`` (to ``version + 1``) in one write transaction, unless the
    file is past it by then: two processes opening an old file at once both see it old,
    and the second must not run a migration the first has run (``ALTER TABLE … ADD
    COLUMN`` cannot run twice). Returns whether it ran here."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        ran = schema_version(conn) <= version
        if ran:
            for statement in statements(MIGRATIONS[version]):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(version + 1),),
            )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return ran


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the file to the latest schema; returns the version reached.

    Raises:
        ConfigurationError: a newer memory-platform wrote the file (since version 12 an
            older one cannot use its full-text index, which a newer SQLite wrote).
    """
    found = schema_version(conn)
    if found > len(MIGRATIONS):
        raise ConfigurationError(
            f"this store was written by a newer memory-platform (schema version {found}; "
            f"this one knows up to {len(MIGRATIONS)}): upgrade memory-platform to open it"
        )
    for version in range(found, len(MIGRATIONS)):
        apply_migration(conn, version)
    return schema_version(conn)
