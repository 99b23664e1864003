// Undo and redo of the editor's edits: each entry a whole document (edits answer new documents and
// never change old ones, so keeping one is keeping a reference). Bounded, so a long session does not
// grow without end.

const LIMIT = 200;

export class History {
  constructor(document) {
    this.past = [];
    this.future = [];
    this.present = document;
  }

  /** Records `document` as the next state (an edit); `label` says what it was, for the buttons' titles. */
  push(document, label) {
    if (document === this.present) return;
    this.past.push({ document: this.present, label });
    if (this.past.length > LIMIT) this.past.shift();
    this.future = [];
    this.present = document;
  }

  /** Replaces the present without an undo step (the server's answer to a save, a reload). */
  reset(document) {
    this.present = document;
  }

  get canUndo() { return this.past.length > 0; }
  get canRedo() { return this.future.length > 0; }
  get undoLabel() { return this.past[this.past.length - 1]?.label ?? null; }
  get redoLabel() { return this.future[this.future.length - 1]?.label ?? null; }

  undo() {
    const entry = this.past.pop();
    if (!entry) return null;
    this.future.push({ document: this.present, label: entry.label });
    this.present = entry.document;
    return this.present;
  }

  redo() {
    const entry = this.future.pop();
    if (!entry) return null;
    this.past.push({ document: this.present, label: entry.label });
    this.present = entry.document;
    return this.present;
  }
}
