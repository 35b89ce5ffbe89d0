module github.com/seer-tools/seer/bench/history

go 1.26.8

require github.com/seer-tools/seer v0.0.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/go-air/gini v1.0.4 // indirect
)

replace github.com/seer-tools/seer => ../..
