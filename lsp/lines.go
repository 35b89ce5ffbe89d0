// This file implements lineMap, which follows lines from one version of a
// file to the next so that stored diagnostics never sit on the wrong text.
//
// Findings are positioned in the content that was recorded; the editor
// then shows a buffer that may differ (unsaved edits at recording time,
// edits since, a buffer closed without saving). Lines before and after the
// changed region keep their text and move by the difference in line count;
// a diagnostic on a line inside the changed region is dropped, not
// guessed. A change is measured per edit (didChange), so the changed
// region is that edit's lines.

package lsp

import "bytes"

// A lineFunc maps a zero-based line of an old version of a file to the
// same text in a new version, or reports false if that line changed.
type lineFunc func(line int) (int, bool)

// lineMap compares old and new line by line from both ends and returns
// the lineFunc between them. Equal contents give the identity.
func lineMap(old, new []byte) lineFunc {
	if bytes.Equal(old, new) {
		return func(l int) (int, bool) { return l, true }
	}
	ol, nl := splitLines(old), splitLines(new)
	prefix := 0
	for prefix < len(ol) && prefix < len(nl) && bytes.Equal(ol[prefix], nl[prefix]) {
		prefix++
	}
	suffix := 0
	for suffix < len(ol)-prefix && suffix < len(nl)-prefix &&
		bytes.Equal(ol[len(ol)-1-suffix], nl[len(nl)-1-suffix]) {
		suffix++
	}
	delta := len(nl) - len(ol)
	firstKept := len(ol) - suffix
	return func(l int) (int, bool) {
		switch {
		case l < 0 || l >= len(ol):
			return 0, false
		case l < prefix:
			return l, true
		case l >= firstKept:
			return l + delta, true
		}
		return 0, false
	}
}

// splitLines splits content after each "\n"; the last line (possibly
// empty) has none. Lines compare with their terminators, so a line that
// gained a "\n" counts as changed.
func splitLines(content []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(content, []byte("\n"))+1)
	for {
		i := bytes.IndexByte(content, '\n')
		if i < 0 {
			return append(lines, content)
		}
		lines = append(lines, content[:i+1])
		content = content[i+1:]
	}
}
