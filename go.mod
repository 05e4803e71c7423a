module github.com/mmapbloom/mmapbloom

go 1.26.8

require (
	github.com/edsrzf/mmap-go v1.2.0
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/stretchr/testify v1.12.1
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.50.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
