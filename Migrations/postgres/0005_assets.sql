-- Media an app uploads for its paywalls (images, video, Lottie JSON), content-addressed: the id is
-- the SHA-256 of the bytes, so an upload is idempotent and a URL never changes what it shows.
CREATE TABLE assets (
    app_id       TEXT    NOT NULL REFERENCES apps(id),
    sha256       TEXT    NOT NULL CHECK (char_length(sha256) = 64),
    kind         TEXT    NOT NULL CHECK (kind IN ('image', 'video', 'lottie')),
    content_type TEXT    NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/gif', 'image/webp',
                                                  'video/mp4', 'video/webm', 'application/json')),
    size         BIGINT  NOT NULL CHECK (size > 0),
    name         TEXT    CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 200),
    bytes        BYTEA   NOT NULL,
    created_at   BIGINT  NOT NULL,
    created_by   TEXT,
    PRIMARY KEY (app_id, sha256)
);
CREATE INDEX assets_by_time ON assets (app_id, created_at, sha256);
