// ui-format-share.test.js: sizes for people, and graph links (URL fragment) both ways.
import { describe, it, expect } from 'vitest';
import { formatBytes, formatBytesExact, parseSize, sizeLiteral, formatPercent, formatShape, SIZE_MAX } from '../../web/src/core/format.js';
import { sharePayload, encodeShare, decodeShare, withBufferLines, stripBufferLines } from '../../web/src/core/share.js';

describe('format', () => {
  it('formats bytes with binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(21696)).toBe('21.2 KiB');
    expect(formatBytes(293605376)).toBe('280 MiB');
    expect(formatBytes(1073741824)).toBe('1.00 GiB');
    expect(formatBytes('18446744073709551615')).toBe('SIZE_MAX');
    expect(formatBytes(null)).toBe('—');
    expect(formatBytesExact(21696)).toBe('21,696 B');
  });
  it('parses what people type', () => {
    expect(parseSize('4096')).toBe(4096n);
    expect(parseSize('16 KiB')).toBe(16384n);
    expect(parseSize('1.5GiB')).toBe(1610612736n);
    expect(parseSize('2 mib')).toBe(2097152n);
    expect(parseSize('none')).toBe(null);
    expect(parseSize('')).toBe(null);
    expect(() => parseSize('1.3 B')).toThrow(/whole number of bytes/);
    expect(() => parseSize('12 parsecs')).toThrow(/unknown unit/);
    expect(() => parseSize('lots')).toThrow(/not a size/);
    expect(() => parseSize('99999999 EiB')).toThrow();
    expect(parseSize(String(SIZE_MAX))).toBe(SIZE_MAX);
  });
  it('writes exact size literals', () => {
    expect(sizeLiteral(1073741824)).toBe('1GiB');
    expect(sizeLiteral(16384)).toBe('16KiB');
    expect(sizeLiteral(40)).toBe('40');
    expect(sizeLiteral('18446744073709551615')).toBe('18446744073709551615');
  });
  it('formats percentages and shapes', () => {
    expect(formatPercent(2080, 19616)).toBe('10.6%');
    expect(formatPercent(1, 0)).toBe('—');
    expect(formatShape([64, 8, 1, 1])).toBe('[64, 8]');
  });
});

describe('share links', () => {
  const preset = '@name p\n@buffer dummy align=8 max=40\n\nx0 = input(f32, 2)\n';
  it('sends only the buffer lines when the graph is a preset', () => {
    const text = withBufferLines(preset, ['@buffer dummy align=8 max=16']);
    expect(text).toBe('@name p\n@buffer dummy align=8 max=16\n\nx0 = input(f32, 2)\n');
    const payload = sharePayload({ text, preset: 'p', presetText: preset });
    expect(payload).toEqual({ v: 1, p: 'p', b: ['@buffer dummy align=8 max=16'] });
    expect(decodeShare(`#${encodeShare(payload)}`)).toEqual(payload);
  });
  it('sends the whole text once the graph changed, and reads it back', () => {
    const text = `${preset}x1 = scale(x0) # "quoted" & <odd>\n`;
    const payload = sharePayload({ text, preset: 'p', presetText: preset });
    expect(payload).toEqual({ v: 1, t: text });
    const frag = encodeShare(payload);
    expect(frag).toMatch(/^g=[A-Za-z0-9+\-$_]*$/);
    expect(decodeShare(frag)).toEqual(payload);
  });
  it('ignores fragments without a graph and rejects damaged ones', () => {
    expect(decodeShare('')).toBe(null);
    expect(decodeShare('#other=1')).toBe(null);
    expect(() => decodeShare('#g=garbage!!')).toThrow(/damaged/);
  });
  it('strips and inserts buffer lines', () => {
    expect(stripBufferLines(preset)).toBe('@name p\n\nx0 = input(f32, 2)\n');
    expect(withBufferLines('x = input(f32, 1)', ['@buffer a align=8'])).toBe('@buffer a align=8\nx = input(f32, 1)');
  });
});
