package names

import (
	"fmt"
	"testing"
)

func TestFrames(t *testing.T) {
	func() { here() }()
	Run()
	for _, f := range Frames {
		fmt.Println("FRAME\t" + f)
	}
}
