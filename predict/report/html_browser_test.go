package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// chromium is Debian's headless browser (.ci/run installs it).
const chromium = "/usr/bin/chromium"

// runChromium runs chromium headless on page with args, in a profile of
// its own, and returns its standard output.
func runChromium(t *testing.T, dir, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1200,900"}, args...)
	cmd := exec.CommandContext(ctx, chromium, append(all, "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// A real browser renders the picture: the screenshot is a PNG, and the
// DOM it built holds the finding's highlighted accesses and the
// reordering's arrows.
func TestWitnessHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: .ci/run must install Debian's chromium (CI set: not skipping)", chromium)
		}
		t.Skipf("%s is missing (apt-get install -y chromium)", chromium)
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "witness.html")
	if err := os.WriteFile(page, WitnessHTML(&witnessReport("/src/bank").Findings[0], htmlOptions()), 0o644); err != nil {
		t.Fatal(err)
	}

	shot := filepath.Join(dir, "witness.png")
	runChromium(t, dir, page, "--screenshot="+shot)
	data, err := os.ReadFile(shot)
	if err != nil || len(data) == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 900 {
		t.Errorf("screenshot is %v, want 1200×900", b)
	}
	// Not a blank page: the highlighted accesses' red is somewhere.
	red := false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && !red; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 > 180 && g>>8 < 80 && b>>8 < 80 {
				red = true
				break
			}
		}
	}
	if !red {
		t.Errorf("no red in the screenshot: the accesses are not highlighted")
	}

	dom := runChromium(t, dir, page, "--dump-dom")
	accesses := regexp.MustCompile(`<g class="step op-(write|read) bug"[^>]* data-bug-access="(write|read)"`).FindAllSubmatch(dom, -1)
	if len(accesses) != 2 || string(accesses[0][2]) != "write" || string(accesses[1][2]) != "read" {
		t.Errorf("the DOM holds %d highlighted accesses, want the write and the read:\n%s", len(accesses), dom)
	}
	for _, want := range []string{`class="arrow witness-order"`, `class="arrow recorded-order"`, `data-reordered="a.mu"`, "reads a.note", "bank.go:35"} {
		if !bytes.Contains(dom, []byte(want)) {
			t.Errorf("the DOM lacks %s", want)
		}
	}
}
