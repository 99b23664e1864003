// The draft as the editor keeps it: the working document, the document and ETag last saved, and the
// autosave under If-Match (debounced, one save in flight, the newest document sent next). Every few
// seconds the draft's ETag is asked (a 304 costs nothing); an edit made elsewhere, or a 412 on a save,
// turns the state to `conflict` and waits for the person to choose.
import { request, ApiError } from "./api.js";

const POLL_MS = 3000;

/** The save states, and the moves between them. */
const MOVES = {
  saved: ["unsaved", "saving", "conflict"],
  unsaved: ["saving", "conflict", "unsaved"],
  saving: ["saved", "unsaved", "conflict", "failed"],
  conflict: ["saved", "unsaved", "saving", "conflict"],
  failed: ["unsaved", "saving", "conflict"],
};

export class Draft {
  /** `on`: {saved(editedAt, {changedIssues}), conflict(theirs), state(label), failed(error)}. */
  constructor(path, on) {
    this.path = path;
    this.on = on;
    this.state = "saved";
    this.document = null;
    this.savedDocument = null;
    this.etag = null;
    this.validation = null;
    this.theirs = null;
    this.timer = null;
    this.inFlight = null;
    this.editedAt = null;
  }

  move(next) {
    if (!MOVES[this.state].includes(next)) throw new Error(`draft: ${this.state} → ${next} is not a move`);
    this.state = next;
    this.on.state(next);
  }

  async load() {
    const { body, etag } = await request("GET", `${this.path}/draft`);
    this.accept(body, etag);
    this.document = body.document;
  }

  accept(body, etag) {
    this.savedDocument = body.document;
    this.etag = etag;
    this.revision = body.revision;
    this.validation = body.validation;
  }

  /** The working document after an edit; saved by `schedule`. */
  set(document) {
    this.document = document;
    this.editedAt = performance.now();
    if (this.state === "saved" || this.state === "failed") this.move("unsaved");
  }

  /** Saves `delay` ms from now (0: at once), unless a conflict waits for a choice. */
  schedule(delay) {
    clearTimeout(this.timer);
    if (this.state === "conflict") return;
    this.timer = setTimeout(() => this.save(), delay);
  }

  /** Starts saving at once (unless a conflict waits), without waiting for the answer. */
  saveNow() {
    clearTimeout(this.timer);
    if (this.state !== "conflict") this.save();
  }

  /** Saves now and answers once the working document is saved (or a conflict or failure stops it). */
  async flush() {
    clearTimeout(this.timer);
    for (let round = 0; round < 20 && (this.state === "unsaved" || this.state === "saving"); round++) await this.save();
    if (this.state !== "saved") throw new ApiError(409, { code: "draft_not_saved", detail: "The draft has changes that are not saved yet: resolve the conflict or the error first." });
  }

  async save() {
    if (this.inFlight) return this.inFlight;
    if (this.state !== "unsaved") return;
    const sent = this.document;
    const editedAt = this.editedAt;
    this.move("saving");
    this.inFlight = (async () => {
      try {
        const answer = await request("PUT", `${this.path}/draft`, { body: sent, headers: { "If-Match": this.etag } });
        const before = JSON.stringify(this.validation);
        this.accept(answer.body, answer.etag);
        this.savedDocument = sent;
        this.move(this.document === sent ? "saved" : "unsaved");
        this.on.saved(editedAt, { changedIssues: JSON.stringify(this.validation) !== before });
      } catch (error) {
        if (error instanceof ApiError && error.status === 412) {
          await this.fetchTheirs();
          return;
        }
        this.move("failed");
        this.on.failed(error);
      } finally {
        this.inFlight = null;
      }
      if (this.state === "unsaved") this.schedule(0);
    })();
    return this.inFlight;
  }

  async fetchTheirs() {
    const { body, etag } = await request("GET", `${this.path}/draft`);
    this.theirs = { body, etag };
    this.move("conflict");
    this.on.conflict(body.document);
  }

  /** Their draft becomes the working one. */
  async reload() {
    if (!this.theirs) await this.fetchTheirs();
    const { body, etag } = this.theirs;
    this.theirs = null;
    this.accept(body, etag);
    this.document = body.document;
    this.move("saved");
    this.on.saved(null, { changedIssues: true });
  }

  /** Mine is saved over theirs (their revision's ETag, so a third edit in between is noticed again). */
  async overwrite() {
    if (this.theirs) this.etag = this.theirs.etag;
    this.theirs = null;
    this.move("unsaved");
    await this.save();
  }

  /** Asks the draft's ETag every few seconds while `alive()`; another revision is a conflict. */
  watch(alive) {
    const poll = async () => {
      if (!alive()) return;
      if (this.state === "saved" && !this.inFlight) {
        try {
          const { body, etag } = await request("GET", `${this.path}/draft`, { headers: { "If-None-Match": this.etag } });
          if (etag !== this.etag && this.state === "saved" && !this.inFlight) {
            this.theirs = { body, etag };
            this.move("conflict");
            this.on.conflict(body.document);
          }
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 304)) this.on.failed(error);
        }
      }
      setTimeout(poll, POLL_MS);
    };
    setTimeout(poll, POLL_MS);
  }
}
