package stats

// MemoryBound is the share of the machine's measured read bandwidth from
// which Loupe says that writing (decode) waits for the memory. A model
// that fills the bandwidth writes at 70-85 % of it (the 1.5B model on a
// laptop; experiment.GuessSpeeds assumes 70 %); a tiny model writes far
// below (171 tokens/s where the memory allowed 1,081 in a threads sweep,
// 16 %; the 5 M-parameter demo at 18.6 % in the lesson), its time spent
// on the work around each layer. 60 % keeps the two apart.
// The lesson's compute chapter and the threads experiment both use it.
const MemoryBound = 0.6

// CacheBound is the share above which writing did not read its weights
// from the memory but from the processor's caches: the 10 MB demo model
// wrote at 4.5 × what the measured bandwidth allows on one thread. 10 %
// above 1 leaves room for a probe that came out low.
const CacheBound = 1.1
