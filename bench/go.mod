module github.com/seer-tools/seer/bench

go 1.26.8

replace github.com/seer-tools/seer => ../

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/golang/groupcache v0.0.0-20241129210726-2c02b8208cf8
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/orcaman/concurrent-map/v2 v2.0.1
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/seer-tools/seer v0.0.0-00010101000000-000000000000
	golang.org/x/sync v0.24.0
)

require (
	github.com/golang/protobuf v1.5.4 // indirect
	google.golang.org/protobuf v1.33.0 // indirect
)
