//go:build tools

package tools

import _ "github.com/oliver006/redis_exporter"
