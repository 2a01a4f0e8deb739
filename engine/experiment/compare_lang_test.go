package experiment

import (
	"testing"

	"loupe/i18n"
	"loupe/trace"
)

// The rerun's comparison, the progress lines and the runs' names in
// French: translated, with French numbers ("0,98 ×", "1,0e-02").
func TestCompareAndNamesInFrench(t *testing.T) {
	nn, nb := "\u202f", "\u00a0"
	for _, c := range []struct{ got, want string }{
		{compareSentence(0.98, 1, 2, 2, 2, 0.01, i18n.English),
			"Against the saved figures, writing ran at 0.98 × the saved speed and reading at 1.00 × (medians over 2 points). " +
				"The same tokens were written at 2 of 2 points, their top-10 probabilities up to 1.0e-02 apart: more than 1e-4 " +
				"(another kernel level or arithmetic rounds differently)."},
		{compareSentence(0.98, 1, 2, 2, 2, 0.01, i18n.French),
			"Face aux chiffres enregistrés, l'écriture est allée à 0,98" + nn + "× la vitesse enregistrée et la lecture à 1,00" + nn +
				"× (médianes sur 2 points). Les mêmes tokens ont été écrits à 2 points sur 2, leurs 10 premières probabilités " +
				"jusqu'à 1,0e-02 d'écart" + nb + ": plus que 1e-4 (un autre niveau de noyaux ou une autre arithmétique arrondit autrement)."},
		{compareSentence(1.5, 2, 3, 0, 3, 0, i18n.French),
			"Face aux chiffres enregistrés, l'écriture est allée à 1,50" + nn + "× la vitesse enregistrée et la lecture à 2,00" + nn +
				"× (médianes sur 3 points). Les mêmes tokens ont été écrits à 0 points sur 3."},
		{CompareIn(Record{}, Result{}, i18n.French), "La nouvelle mesure n'a repris aucun des points enregistrés."},
		{threadsName(i18n.French, 12), "12 fils"},
		{threadsName(i18n.French, 1), "1 fil"},
		{threadsName(i18n.English, 1), "1 thread"},
		{progress(i18n.French, "noyaux avx2", Options{PromptTokens: 1536, DecodeTokens: 32}),
			"noyaux avx2" + nb + ": lecture de 1" + nn + "536 tokens, écriture de 32"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	r := Result{What: Threads, Points: []Point{{Value: 12, Label: "12", Run: &trace.Run{}}}}
	r.nameRuns(i18n.French)
	if got, want := r.Points[0].Run.Origin, "12 fils (expérience des fils)"; got != want {
		t.Errorf("origin %q, want %q", got, want)
	}
}
