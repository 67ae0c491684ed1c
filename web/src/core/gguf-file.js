// gguf-file.js: reads the header of a GGUF file (a File or Blob) in the page, slice by slice.
//
// Only the header is read: the first slice is small, and each further one reaches as far as
// the reader asks (at least doubling what was read), so a multi-GiB model costs a few reads of
// its first megabytes. The bytes never leave the page.

/** bytes read first (most headers without a tokenizer fit; with one they take a few MiB) */
export const FIRST_SLICE = 1 << 20;

/**
 * Read a GGUF header from a Blob.
 * @param {import('./galloc.js').Galloc} galloc
 * @param {Blob} blob the file
 * @param {{firstSlice?: number, maxItems?: number}} [options]
 * @returns {Promise<{summary: import('./galloc.js').GgufSummary, header: Uint8Array, bytesRead: number, reads: number}>}
 *   header: the file's first summary.header_size bytes (what a model is built from); bytesRead:
 *   how many bytes of the file were read in all
 * @throws {import('./galloc.js').GallocError} 'invalid-input' naming the byte offset and the key
 */
export async function readGgufHeader(galloc, blob, { firstSlice = FIRST_SLICE, maxItems = 8 } = {}) {
  let have = new Uint8Array(await blob.slice(0, Math.min(blob.size, firstSlice)).arrayBuffer());
  let reads = 1;
  for (;;) {
    const r = galloc.ggufSummary(have, { fileSize: blob.size, maxItems });
    if (r.needBytes === undefined) {
      return { summary: r, header: have.subarray(0, r.header_size), bytesRead: have.length, reads };
    }
    // needBytes <= blob.size here: past the end of the file the reader reports an error instead
    const next = Math.min(blob.size, Math.max(r.needBytes, have.length * 2));
    if (next <= have.length) throw new Error(`GGUF reader asked for ${r.needBytes} bytes of a ${blob.size}-byte file`);
    const more = new Uint8Array(await blob.slice(have.length, next).arrayBuffer());
    const grown = new Uint8Array(have.length + more.length);
    grown.set(have);
    grown.set(more, have.length);
    have = grown;
    reads++;
  }
}
