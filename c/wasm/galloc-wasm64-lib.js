// galloc-wasm64-lib.js: emscripten 3.1.6's JS imports that the wasm64 module calls, made to take its
// 64-bit arguments (c/wasm/wasm.mk passes this file with --js-library; it replaces the library's own).
//
// With -sMEMORY64=2 a pointer or size_t argument reaches JS as a BigInt, and 3.1.6's versions of
// these functions compute with it as a Number (HEAPU8.copyWithin(dest, src, src + num) throws
// "Cannot convert a BigInt value to a number"). Each is the same function with its arguments made
// Numbers first: every address is below 2 GiB (-sMAXIMUM_MEMORY=2GB). The settings are the module's
// (memory growth, a malloc that returns NULL at the limit). The module's other imports (fd_write,
// fd_seek, fd_close, abort) already take them.

mergeInto(LibraryManager.library, {
  // void * emscripten_memcpy_big(void * dest, const void * src, size_t n): returns dest (an i64)
  emscripten_memcpy_big: function(dest, src, num) {
    var d = Number(dest);
    src = Number(src);
    HEAPU8.copyWithin(d, src, src + Number(num));
    return dest;
  },

  emscripten_resize_heap__deps: ['emscripten_get_heap_max', '$emscripten_realloc_buffer'],
  emscripten_resize_heap: function(requestedSize) {
    var oldSize = HEAPU8.length;
    requestedSize = Number(requestedSize);
    var maxHeapSize = _emscripten_get_heap_max();
    if (requestedSize > maxHeapSize) {
      return false; // malloc returns NULL
    }
    let alignUp = (x, multiple) => x + (multiple - x % multiple) % multiple;
    for (var cutDown = 1; cutDown <= 4; cutDown *= 2) {
      var overGrownHeapSize = oldSize * (1 + {{{ MEMORY_GROWTH_GEOMETRIC_STEP }}} / cutDown);
      overGrownHeapSize = Math.min(overGrownHeapSize, requestedSize + {{{ MEMORY_GROWTH_GEOMETRIC_CAP }}});
      var newSize = Math.min(maxHeapSize, alignUp(Math.max(requestedSize, overGrownHeapSize), {{{ WASM_PAGE_SIZE }}}));
      if (emscripten_realloc_buffer(newSize)) {
        return true;
      }
    }
    return false;
  },

  // struct timespec is two 64-bit fields here (time_t, long): both written whole
  clock_gettime__deps: ['emscripten_get_now', 'emscripten_get_now_is_monotonic', '$setErrNo'],
  clock_gettime: function(clk_id, tp) {
    tp = Number(tp);
    var now;
    if (clk_id === {{{ cDefine('CLOCK_REALTIME') }}}) {
      now = Date.now();
    } else if ((clk_id === {{{ cDefine('CLOCK_MONOTONIC') }}} || clk_id === {{{ cDefine('CLOCK_MONOTONIC_RAW') }}}) && _emscripten_get_now_is_monotonic) {
      now = _emscripten_get_now();
    } else {
      setErrNo({{{ cDefine('EINVAL') }}});
      return -1;
    }
    var sec = Math.floor(now / 1000);
    HEAP32[(tp + {{{ C_STRUCTS.timespec.tv_sec }}}) >> 2] = sec;
    HEAP32[((tp + {{{ C_STRUCTS.timespec.tv_sec }}}) >> 2) + 1] = 0;
    HEAP32[(tp + {{{ C_STRUCTS.timespec.tv_nsec }}}) >> 2] = Math.floor((now - sec * 1000) * 1000000);
    HEAP32[((tp + {{{ C_STRUCTS.timespec.tv_nsec }}}) >> 2) + 1] = 0;
    return 0;
  },

  __assert_fail: function(condition, filename, line, func) {
    condition = Number(condition); filename = Number(filename); func = Number(func);
    abort('Assertion failed: ' + UTF8ToString(condition) + ', at: ' + [filename ? UTF8ToString(filename) : 'unknown filename', line, func ? UTF8ToString(func) : 'unknown function']);
  },
});
