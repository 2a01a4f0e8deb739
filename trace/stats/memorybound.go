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
