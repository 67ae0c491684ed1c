// document-modes.h: a graph document read every way galloc_document_read_mode offers, compared.
#pragma once

#include <stdbool.h>
#include <stddef.h>

// true when the one-pass reader (alone: declined, or the same), the fast entry reader, the checked
// reader on every entry and the whole-tree reader give the same verdict, status and message, and on success the same document field for field;
// else false with what differs (and the mode) in why
bool document_modes_agree(const char * text, size_t len, char * why, size_t size);
// the same; *one_pass_took (may be NULL) says whether the one-pass reader alone took the document
bool document_modes_agree_taken(const char * text, size_t len, bool * one_pass_took, char * why, size_t size);
