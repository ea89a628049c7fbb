package store

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
)

// CountUnhealthySources counts failing and disabled sources by source
// type, for the failure gauges the scheduler refreshes at every tick. It
// reads the partial index feed_sources_unhealthy, whose condition it
// repeats, so the cost follows the unhealthy sources, not all of them.
func (s *Store) CountUnhealthySources(ctx context.Context) ([]model.SourceHealth, error) {
	var out []model.SourceHealth
	err := s.db.SelectContext(ctx, &out, s.q(`SELECT source_type,
		SUM(CASE WHEN `+s.d.activeCondition()+` AND consecutive_failures < ? THEN 1 ELSE 0 END) AS failing,
		SUM(CASE WHEN `+s.d.activeCondition()+` AND consecutive_failures < ? THEN 0 ELSE 1 END) AS disabled
		FROM feed_sources WHERE `+s.d.unhealthyCondition()+` GROUP BY source_type ORDER BY source_type`),
		model.MaxConsecutiveFailures, model.MaxConsecutiveFailures)
	if err != nil {
		return nil, fmt.Errorf("count unhealthy sources: %w", err)
	}
	return out, nil
}
