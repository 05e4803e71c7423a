package server

import (
	"context"
	"strings"
	"testing"

	"github.com/mmapbloom/mmapbloom/tools/server/glob"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// globCases are patterns with Redis 7.0.15's answers (each checked with
// KEYS against it; nocase rows with CONFIG GET's rule).
var globCases = []struct {
	pattern, subject string
	nocase, want     bool
}{
	{"h[ae]llo", "hello", false, true}, {"h[ae]llo", "hallo", false, true}, {"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", false, true}, {"h[^e]llo", "hello", false, false},
	{"h[a-b]llo", "hbllo", false, true}, {"h[a-b]llo", "hcllo", false, false}, {"h[b-a]llo", "hallo", false, true},
	{"h?llo", "hello", false, true}, {"h*llo", "hllo", false, true}, {"h*llo", "heeeello", false, true},
	{"h\\*llo", "h*llo", false, true}, {"h\\*llo", "hello", false, false}, {"a\\", "a\\", false, true},
	{"[\\]]", "]", false, true}, {"[a", "a", false, true}, {"[a", "b", false, false}, {"[", "x", false, false},
	{"[a-]", "]", false, true}, {"", "", false, true}, {"?", "", false, false},
	{"*", "", false, false}, {"**", "", false, false}, {"a*", "a", false, true}, {"a**", "a", false, true}, {"*a*b", "xaxxb", false, true},
	{"MaxMemory", "maxmemory", true, true}, {"MAX[L-M]*", "maxmemory", true, true}, {"[\\M]", "m", true, false},
	{"[a-\xff]", "Z", false, true}, {"[a-\xff]", "\x80", false, false},
	{"[X-a]Z", "hz", true, false}, {"[X-a]Z", "hz", false, false}, {"[X-a]Z", "^Z", false, true}, {"[\xe8-\x7f]", "a", true, false}, {"[\xe8-\x7f]", "a", false, true}, {"[\xff-X]Z", "hz", true, true},
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range globCases {
		assert.Equal(t, tc.want, glob.Match(tc.pattern, tc.subject, tc.nocase), "%q %q nocase=%v", tc.pattern, tc.subject, tc.nocase)
	}
}

// TestGlobCasesAsRedis checks globCases's case-sensitive rows against
// redis-server's KEYS (whose "*" lists every key).
func TestGlobCasesAsRedis(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: startRedisRef(t), Protocol: 2})
	defer rdb.Close()
	for _, tc := range globCases {
		if !tc.nocase {
			assert.Equal(t, redisMatches(t, rdb, tc.pattern, tc.subject), keyMatch(tc.pattern, tc.subject), "%q %q", tc.pattern, tc.subject)
		}
	}
}

// redisMatches asks redis-server whether KEYS pattern lists the key
// subject in a database holding only it.
func redisMatches(t testing.TB, rdb *redis.Client, pattern, subject string) bool {
	ctx := context.Background()
	pipe := rdb.Pipeline()
	pipe.FlushDB(ctx)
	pipe.Set(ctx, subject, "1", 0)
	keys := pipe.Keys(ctx, pattern)
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
	return len(keys.Val()) == 1
}

// FuzzGlob compares keyMatch (glob.Match, case-sensitive) with
// redis-server's KEYS on the pattern and key it is given.
func FuzzGlob(f *testing.F) {
	for _, tc := range globCases {
		f.Add(tc.pattern, tc.subject)
	}
	f.Add("*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("[^a-c\\]x]?*[", "d]q")
	rdb := redis.NewClient(&redis.Options{Addr: startRedisRef(f), Protocol: 2})
	f.Cleanup(func() { _ = rdb.Close() })
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		if len(pattern) > 64 || len(subject) > 64 {
			return
		}
		want := redisMatches(t, rdb, pattern, subject)
		require.Equal(t, want, keyMatch(pattern, subject), "%q %q", pattern, subject)
	})
}

// FuzzGlobNocase compares glob.Match with nocase against redis-server's
// CONFIG GET, which matches its parameter names in any case, on the
// patterns it is given, read as CONFIG GET reads them (configPattern;
// those with a glob character: a plain name is looked up, not matched).
func FuzzGlobNocase(f *testing.F) {
	for _, p := range []string{"MAX[A-D]*", "*MEMORY?*", "[^a-l]*", "*-[^a-z]*", "m*[\\X]*"} {
		f.Add(p)
	}
	rdb := redis.NewClient(&redis.Options{Addr: startRedisRef(f), Protocol: 2})
	f.Cleanup(func() { _ = rdb.Close() })
	all, err := rdb.ConfigGet(context.Background(), "*").Result()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 32 || !strings.ContainsAny(configPattern([]byte(pattern)), "*?[") {
			return
		}
		got, err := rdb.ConfigGet(context.Background(), pattern).Result()
		require.NoError(t, err)
		for name := range all {
			_, want := got[name]
			require.Equal(t, want, glob.Match(configPattern([]byte(pattern)), name, true), "%q %q", pattern, name)
		}
	})
}
