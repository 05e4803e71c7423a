module github.com/mmapbloom/mmapbloom

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/edsrzf/mmap-go v1.2.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/stretchr/testify v1.12.1
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
