// Editor.jsx: the graph text in CodeMirror, with errors at their lines.
//
// Typing calls editText; a text replaced from elsewhere (preset, import,
// buffer panel, graph view) arrives through textRevision. Moving the cursor
// onto a tensor's line selects that tensor; selecting a tensor elsewhere
// highlights and scrolls to its line. Every replacement is its own step of the
// editor's history, and Ctrl+Z (Ctrl+Shift+Z, Ctrl+Y) anywhere outside a text
// field undoes (redoes) it: an import, a preset, an edit from another view.
import { useEffect, useRef } from 'preact/hooks';
import { useSignalEffect } from '@preact/signals';
import { EditorState, Annotation, StateEffect, StateField, Compartment } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, Decoration, drawSelection } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, isolateHistory, undo, redo } from '@codemirror/commands';
import { setDiagnostics, lintGutter } from '@codemirror/lint';
import { StreamLanguage, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { text, textRevision, textErrors, textPending, textParsing, editText, flushText, meta, selected, select } from '../state.js';
import { graphLanguage } from './graph-language.js';

const fromOutside = Annotation.define();
// read-only while the text of the graph on screen is being written (a big import): an edit of the
// text before would replace that graph with the previous one
const writable = new Compartment();
const readOnly = (on) => [EditorState.readOnly.of(on), EditorView.editable.of(!on)];
const markLine = StateEffect.define();
const marked = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    let d = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(markLine)) {
        d = e.value === null ? Decoration.none : Decoration.set([Decoration.line({ class: 'cm-selected-tensor' }).range(e.value)]);
      }
    }
    return d;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function tensorAtLine(m, line) {
  if (!m) return -1;
  const tl = m.tensorLines;
  let lo = 0;
  let hi = tl.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (tl[mid] === line) return mid;
    if (tl[mid] < line) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

export function Editor() {
  const host = useRef(null);
  const view = useRef(null);
  useEffect(() => {
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text.value,
        extensions: [
          lineNumbers(), history(), drawSelection(), highlightActiveLine(), lintGutter(), marked, writable.of(readOnly(textPending.peek())),
          StreamLanguage.define(graphLanguage), syntaxHighlighting(defaultHighlightStyle),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.updateListener.of((u) => {
            const outside = u.transactions.some((tr) => tr.annotation(fromOutside));
            if (u.docChanged && !outside) editText(u.state.doc.toString());
            if (u.selectionSet && !outside && !u.docChanged) {
              const line = u.state.doc.lineAt(u.state.selection.main.head).number;
              const i = tensorAtLine(meta.value, line);
              if (i >= 0 && i !== selected.value) select(i);
            }
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
  }, []);

  useEffect(() => {
    const onKey = (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const k = e.key.toLowerCase();
      if (k !== 'z' && k !== 'y') return;
      const el = e.target;
      // text fields (and the editor itself) have their own undo
      if (el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName ?? ''))) return;
      if (!view.current) return;
      e.preventDefault();
      flushText(); // an import whose text is still being written: written first, so that undo takes it back
      (k === 'y' || e.shiftKey ? redo : undo)(view.current);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useSignalEffect(() => {
    textRevision.value;
    const v = view.current;
    const t = text.peek();
    if (!v || v.state.doc.toString() === t) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: t }, annotations: [fromOutside.of(true), isolateHistory.of('full')] });
  });

  useSignalEffect(() => {
    const on = textPending.value;
    view.current?.dispatch({ effects: writable.reconfigure(readOnly(on)), annotations: fromOutside.of(true) });
  });

  useSignalEffect(() => {
    const errs = textErrors.value;
    const v = view.current;
    if (!v) return;
    const doc = v.state.doc;
    const diags = errs.filter((e) => e.line >= 1 && e.line <= doc.lines).map((e) => {
      const l = doc.line(e.line);
      return { from: l.from, to: Math.max(l.to, l.from), severity: 'error', message: e.message };
    });
    v.dispatch(setDiagnostics(v.state, diags));
  });

  useSignalEffect(() => {
    const i = selected.value;
    const m = meta.value;
    const v = view.current;
    if (!v) return;
    if (i < 0 || !m || !m.tensorLines[i] || m.tensorLines[i] > v.state.doc.lines) {
      v.dispatch({ effects: markLine.of(null), annotations: fromOutside.of(true) });
      return;
    }
    const line = v.state.doc.line(m.tensorLines[i]);
    const cursorLine = v.state.doc.lineAt(v.state.selection.main.head).number;
    v.dispatch({ effects: [markLine.of(line.from)], annotations: fromOutside.of(true) });
    // the line centred in the editor's own scroller only: EditorView.scrollIntoView scrolls the
    // page too, which jumps away from the timeline or graph view the tensor was picked in
    if (cursorLine !== line.number) {
      v.requestMeasure({
        read: () => v.lineBlockAt(line.from),
        write: (block) => { v.scrollDOM.scrollTop = Math.max(0, block.top - v.scrollDOM.clientHeight / 2 + block.height / 2); },
      });
    }
  });

  return (
    <div class="editor-pane">
      <div class="pane-title">
        Graph text <span class="hint">ggml calls · <code>@buffer</code> types · <code>@B</code> assigns · <code>output(…)</code></span>
        {textPending.value && <span class="hint" data-testid="text-pending"> · writing the text of the imported graph…</span>}
        {textParsing.value && <span class="hint" data-testid="text-parsing"> · reading the text (in the background)…</span>}
      </div>
      <div class="editor" ref={host} data-testid="editor" />
    </div>
  );
}
