// Package manifest holds the codecs of a filter set's two small files
// (format/FORMAT.md, "Filter sets"): the MANIFEST, a JSON object listing
// the set's options and layers, replaced atomically and durably on every
// change (Read and Write; Decode and Encode, its bytes; Manifest.Check),
// and CONTROL, one shared page whose generation word every handle loads
// on each call to notice a new MANIFEST (OpenControl, Control.Generation,
// Control.Raise). Package
// mmapbloom's Set builds on them; nothing here opens a layer. Errors are
// the sentinels of internal/errs (ErrBadSet, ErrFileChanged), wrapped
// with the directory or file and the "mmapbloom:" prefix.
package manifest
