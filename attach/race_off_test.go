//go:build !race

package attach

// raceDetector tells a test it runs under -race.
const raceDetector = false
