// This file implements removing a run's spool in the background: the
// kernel frees the spool file's page cache in the unlink itself, which on
// a large spool took a measurable part of the time between the end of the
// conversion and the start of the analysis (bench/RESULTS.md, "the
// spool's unlink off the path"). Nothing reads a
// spool once its run's conversion ended, so the unlink can go on beside
// the analysis; Binary.Close waits for it.

package record

import "os"

// removeFile is os.Remove; a test holds it to see Close wait.
var removeFile = os.Remove

// removeLater removes the file at path in the background; Close waits for
// every removal begun. A spool kept by RecordOptions.KeepSpool is a second
// link to the same file, so removing this name frees nothing of it.
func (b *Binary) removeLater(path string) {
	b.removing.Add(1)
	go func() {
		defer b.removing.Done()
		removeFile(path)
	}()
}
