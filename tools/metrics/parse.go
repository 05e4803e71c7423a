package metrics

import (
	"fmt"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape fetches url (a /metrics endpoint: this package's, or
// redis_exporter's) and parses its text exposition with Prometheus's
// own parser, returning the metric families by name. Errors: the HTTP
// request's, a status other than 200, the parser's.
func Scrape(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := (&http.Client{Timeout: time.Minute}).Get(url)
	if err != nil {
		return nil, fmt.Errorf("metrics: scrape: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: scrape %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("metrics: scrape %s: %w", url, err)
	}
	return fams, nil
}
