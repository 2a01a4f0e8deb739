package engine

import "loupe/engine/pool"

// PoolStats are what the workers of the forward pass did since the model's
// pool started, its last SetThreads or ResetPoolStats (see pool.Stats):
// bench reads them to show where decode waits.
func (m *Model) PoolStats() pool.Stats { return m.pool.Stats() }

// ResetPoolStats zeroes PoolStats.
func (m *Model) ResetPoolStats() { m.pool.ResetStats() }
