-- 0020: teams (issue 37, docs/teams.md): people sign in as themselves. Keys stay what machines use.

-- A person. The email is stored lowercased (one account per address); the password as an Argon2id
-- PHC string, which carries its own parameters. Failed sign-ins in a row and the lock they set live
-- here, so every process behind one database enforces the same lock.
CREATE TABLE users (
    id              TEXT    PRIMARY KEY,
    email           TEXT    NOT NULL UNIQUE CHECK (length(email) BETWEEN 3 AND 254),
    password_hash   TEXT    CHECK (password_hash IS NULL OR length(password_hash) BETWEEN 1 AND 256),
    instance_admin  INTEGER NOT NULL CHECK (instance_admin IN (0, 1)),
    created_at      INTEGER NOT NULL,
    disabled_at     INTEGER,
    failed_signins  INTEGER NOT NULL DEFAULT 0 CHECK (failed_signins >= 0),
    locked_until    INTEGER,
    -- The second factor (RFC 6238): the secret (base32) once confirmed, the one being enrolled, and
    -- the last time step used, so a code works once.
    totp_secret     TEXT    CHECK (totp_secret IS NULL OR length(totp_secret) = 32),
    totp_pending    TEXT    CHECK (totp_pending IS NULL OR length(totp_pending) = 32),
    totp_last_step  INTEGER
) STRICT;

-- One-time recovery codes of an account with a second factor, as SHA-256 (hex).
CREATE TABLE recovery_codes (
    user_id   TEXT    NOT NULL REFERENCES users (id),
    code_hash TEXT    NOT NULL CHECK (length(code_hash) = 64),
    used_at   INTEGER,
    PRIMARY KEY (user_id, code_hash)
) STRICT;

-- A person's role in an app (docs/teams.md, "Roles").
CREATE TABLE memberships (
    app_id     TEXT    NOT NULL REFERENCES apps (id),
    user_id    TEXT    NOT NULL REFERENCES users (id),
    role       TEXT    NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, user_id)
) STRICT;
CREATE INDEX memberships_by_user ON memberships (user_id);

-- A signed-in browser. The token is only ever stored as its SHA-256 (hex); `id` is what lists and
-- revocations name. A session ends at `expires_at`, after `last_seen_at` + the idle limit, or when
-- revoked.
CREATE TABLE sessions (
    id           TEXT    PRIMARY KEY,
    token_hash   TEXT    NOT NULL UNIQUE CHECK (length(token_hash) = 64),
    user_id      TEXT    NOT NULL REFERENCES users (id),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    revoked_at   INTEGER,
    address      TEXT    CHECK (address IS NULL OR length(address) <= 64),
    user_agent   TEXT    CHECK (user_agent IS NULL OR length(user_agent) <= 256)
) STRICT;
CREATE INDEX sessions_by_user ON sessions (user_id);

-- An owner's invitation: a single-use link for one email and role, valid 7 days. Only the token's
-- SHA-256 is kept; accepting it creates the account (or signs the existing one in) and adds the role.
CREATE TABLE invitations (
    id          TEXT    PRIMARY KEY,
    token_hash  TEXT    NOT NULL UNIQUE CHECK (length(token_hash) = 64),
    app_id      TEXT    NOT NULL REFERENCES apps (id),
    email       TEXT    NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    role        TEXT    NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    accepted_at INTEGER,
    accepted_by TEXT    REFERENCES users (id),
    revoked_at  INTEGER
) STRICT;
CREATE INDEX invitations_by_app ON invitations (app_id, created_at);

-- A single sign-on in flight (OpenID Connect): the hashes of its `state` and of the browser cookie
-- that binds it, its nonce and PKCE verifier; used once, kept 10 minutes (pruned as new ones start).
CREATE TABLE sso_logins (
    state_hash    TEXT    PRIMARY KEY CHECK (length(state_hash) = 64),
    browser_hash  TEXT    NOT NULL CHECK (length(browser_hash) = 64),
    nonce         TEXT    NOT NULL CHECK (length(nonce) BETWEEN 1 AND 100),
    code_verifier TEXT    NOT NULL CHECK (length(code_verifier) BETWEEN 43 AND 128),
    created_at    INTEGER NOT NULL,
    used_at       INTEGER
) STRICT;
CREATE INDEX sso_logins_by_time ON sso_logins (created_at);

-- The audit log learns people: actor 'user' with the user, the email at the time and the session.
-- SQLite cannot change a CHECK in place, so the table is rebuilt with its rows and sequence.
CREATE TABLE audit_log_teams (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id      TEXT,
    at          INTEGER NOT NULL,
    actor_kind  TEXT NOT NULL CHECK (actor_kind IN ('admin', 'secret', 'public', 'cli', 'system', 'user')),
    key_id      TEXT,
    via         TEXT NOT NULL CHECK (via IN ('rest', 'mcp', 'cli', 'system')),
    action      TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 64),
    target_kind TEXT NOT NULL CHECK (length(target_kind) BETWEEN 1 AND 32),
    target_id   TEXT,
    request_id  TEXT,
    before_hash TEXT CHECK (before_hash IS NULL OR length(before_hash) = 64),
    after_hash  TEXT CHECK (after_hash IS NULL OR length(after_hash) = 64),
    user_id     TEXT,
    user_email  TEXT,
    session_id  TEXT
) STRICT;
INSERT INTO audit_log_teams (seq, app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash)
    SELECT seq, app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash FROM audit_log;
DROP TABLE audit_log;
ALTER TABLE audit_log_teams RENAME TO audit_log;
CREATE INDEX audit_log_by_app ON audit_log (app_id, seq);
CREATE INDEX audit_log_by_time ON audit_log (at);
