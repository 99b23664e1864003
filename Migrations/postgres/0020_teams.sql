-- 0020 (as SQLite's): teams (issue 37, docs/teams.md): people sign in as themselves. Keys stay what
-- machines use.

-- A person. The email is stored lowercased (one account per address); the password as an Argon2id
-- PHC string, which carries its own parameters. Failed sign-ins in a row and the lock they set live
-- here, so every replica enforces the same lock.
CREATE TABLE users (
    id              TEXT    PRIMARY KEY,
    email           TEXT    NOT NULL UNIQUE CHECK (length(email) BETWEEN 3 AND 254),
    password_hash   TEXT    CHECK (password_hash IS NULL OR length(password_hash) BETWEEN 1 AND 256),
    instance_admin  BIGINT  NOT NULL CHECK (instance_admin IN (0, 1)),
    created_at      BIGINT  NOT NULL,
    disabled_at     BIGINT,
    failed_signins  BIGINT  NOT NULL DEFAULT 0 CHECK (failed_signins >= 0),
    locked_until    BIGINT,
    -- The second factor (RFC 6238): the secret (base32) once confirmed, the one being enrolled, and
    -- the last time step used, so a code works once.
    totp_secret     TEXT    CHECK (totp_secret IS NULL OR length(totp_secret) = 32),
    totp_pending    TEXT    CHECK (totp_pending IS NULL OR length(totp_pending) = 32),
    totp_last_step  BIGINT
);

-- One-time recovery codes of an account with a second factor, as SHA-256 (hex).
CREATE TABLE recovery_codes (
    user_id   TEXT    NOT NULL REFERENCES users (id),
    code_hash TEXT    NOT NULL CHECK (length(code_hash) = 64),
    used_at   BIGINT,
    PRIMARY KEY (user_id, code_hash)
);

-- A person's role in an app (docs/teams.md, "Roles").
CREATE TABLE memberships (
    app_id     TEXT    NOT NULL REFERENCES apps (id),
    user_id    TEXT    NOT NULL REFERENCES users (id),
    role       TEXT    NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (app_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id);

-- A signed-in browser. The token is only ever stored as its SHA-256 (hex); `id` is what lists and
-- revocations name.
CREATE TABLE sessions (
    id           TEXT    PRIMARY KEY,
    token_hash   TEXT    NOT NULL UNIQUE CHECK (length(token_hash) = 64),
    user_id      TEXT    NOT NULL REFERENCES users (id),
    created_at   BIGINT  NOT NULL,
    last_seen_at BIGINT  NOT NULL,
    expires_at   BIGINT  NOT NULL,
    revoked_at   BIGINT,
    address      TEXT    CHECK (address IS NULL OR length(address) <= 64),
    user_agent   TEXT    CHECK (user_agent IS NULL OR length(user_agent) <= 256)
);
CREATE INDEX sessions_by_user ON sessions (user_id);

-- An owner's invitation: a single-use link for one email and role, valid 7 days. Only the token's
-- SHA-256 is kept; accepting it creates the account (or signs the existing one in) and adds the role.
CREATE TABLE invitations (
    id          TEXT    PRIMARY KEY,
    token_hash  TEXT    NOT NULL UNIQUE CHECK (length(token_hash) = 64),
    app_id      TEXT    NOT NULL REFERENCES apps (id),
    email       TEXT    NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    role        TEXT    NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
    created_at  BIGINT  NOT NULL,
    expires_at  BIGINT  NOT NULL,
    accepted_at BIGINT ,
    accepted_by TEXT    REFERENCES users (id),
    revoked_at  BIGINT 
);
CREATE INDEX invitations_by_app ON invitations (app_id, created_at);

-- A single sign-on in flight (OpenID Connect): the hashes of its `state` and of the browser cookie
-- that binds it, its nonce and PKCE verifier; used once, kept 10 minutes (pruned as new ones start).
CREATE TABLE sso_logins (
    state_hash    TEXT    PRIMARY KEY CHECK (length(state_hash) = 64),
    browser_hash  TEXT    NOT NULL CHECK (length(browser_hash) = 64),
    nonce         TEXT    NOT NULL CHECK (length(nonce) BETWEEN 1 AND 100),
    code_verifier TEXT    NOT NULL CHECK (length(code_verifier) BETWEEN 43 AND 128),
    created_at    BIGINT NOT NULL,
    used_at       BIGINT
);
CREATE INDEX sso_logins_by_time ON sso_logins (created_at);

-- The audit log learns people: actor 'user' with the user, the email at the time and the session.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_kind_check
    CHECK (actor_kind IN ('admin', 'secret', 'public', 'cli', 'system', 'user'));
ALTER TABLE audit_log ADD COLUMN user_id TEXT;
ALTER TABLE audit_log ADD COLUMN user_email TEXT;
ALTER TABLE audit_log ADD COLUMN session_id TEXT;
