// galloc-presets.h: ready-made graph documents (the allocator test's scenarios, model graphs).
//
// The scenarios and tiny decoders are documents kept as data (c/presets); the model presets are
// built from their cards by the model builders when asked for.
//
// Example usage:
//
//   for (int i = 0; i < galloc_preset_count(); i++) puts(galloc_preset_name(i));
//   size_t len;
//   char * json = galloc_preset_document("test_view_inplace", &len);
//   free(json);

#pragma once

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int          galloc_preset_count(void);
const char * galloc_preset_name(int i);        // NULL when out of range
const char * galloc_preset_description(int i); // one sentence: what the preset shows
// true for every listed name, so callers tell an unknown name from out of memory
bool         galloc_preset_exists(const char * name);
// the graph document of the preset: malloc'd, NUL-terminated; NULL for an unknown name or out of memory
char *       galloc_preset_document(const char * name, size_t * len);

#ifdef __cplusplus
}
#endif
