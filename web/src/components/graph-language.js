// graph-language.js: syntax colouring of the graph text for CodeMirror's StreamLanguage.
export const graphLanguage = {
  name: 'galloc-graph',
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.peek() === '#') { stream.skipToEnd(); return 'comment'; }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^@[A-Za-z_]+/)) return 'keyword';
    if (stream.match(/^\$\d+/)) return 'atom';
    if (stream.match(/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[A-Za-z]*/)) return 'number';
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_.\-]*(?=\s*\()/)) return 'keyword';
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_.\-]*(?=\s*=\s*[\[A-Za-z0-9$"])/) && stream.string.slice(0, stream.start).trim() !== '') return 'propertyName';
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_.\-]*/)) return 'variableName';
    stream.next();
    return 'punctuation';
  },
};
