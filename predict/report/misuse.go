// This file implements the report side of the misuse kinds (predict's
// misuse.go): the sentence that says what a misuse finding's schedule
// does. Their titles, documentation and sentences are rows of the kinds
// table (kind.go).

package report

// MisuseSentence says what a misuse finding's schedule does, for the
// hover: its failing operation is next, in the state that fails it.
func MisuseSentence(f *Finding) string {
	if len(f.Accesses) == 0 {
		return ""
	}
	a := f.Accesses[len(f.Accesses)-1]
	on := ""
	if a.Variable != "" {
		on = " " + a.Variable
	}
	if in := f.Kind.info(); in != nil && in.sentence != nil {
		return in.sentence(f, &a, on)
	}
	return ""
}
