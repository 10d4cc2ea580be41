package org.graphrag.procedures;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One decision per mention: the rules of Python's {@code graphrag_cypher.linkers.disambiguation}
 * (profiles, {@code decide}, {@code document_context}), ported one for one. Scores are summed in
 * the Python code's order and confidences rounded as Python's {@code round(x, 3)} rounds.
 */
final class PlaceDecisions {

    private PlaceDecisions() {}

    static final Pattern STUB = PyText.re(
            "^An ancient place, cited: BAtlas|precise location cannot be determined", true);
    static final Pattern WITHDRAWN = PyText.re("\\b(?:withdrawn|duplicate|deprecated|untitled)\\b", true);
    private static final Pattern TITLE_PARTS = PyText.re("\\s*\\([^()]*\\)\\s*", false);
    private static final Pattern BRACKET = PyText.re("\\(([^()]*)\\)", false);
    private static final Pattern SENTENCE = PyText.re("(?<=[.;])\\s", false);

    private record KindPattern(String kind, Pattern pattern) {}

    private static final List<KindPattern> KIND_PATTERNS = List.of(
            new KindPattern("diocese", PyText.re("\\bdiocese\\b", true)),
            new KindPattern("province", PyText.re("\\bprovinces?\\b|\\bsatrapy\\b|\\bconventus\\b", true)),
            new KindPattern("island", PyText.re("\\bisland\\b|\\bisle\\b", true)),
            new KindPattern("port", PyText.re("\\bport\\b|\\bharbou?r\\b|\\banchorage\\b", true)),
            new KindPattern("river", PyText.re("\\briver\\b|\\bstream\\b", true)),
            new KindPattern("mountain", PyText.re("\\bmountain\\b|\\bmount\\b|\\bpeak\\b", true)),
            new KindPattern("sanctuary", PyText.re("\\bsanctuary\\b|\\btemple\\b", true)),
            new KindPattern("region", PyText.re(
                    "\\bregion\\b|\\bkingdom\\b|\\bpeninsula\\b|\\bterritory\\b|\\bpeople\\b", true)),
            new KindPattern("settlement", PyText.re(
                    "\\bcity\\b|\\btown\\b|\\bsettlement\\b|\\bpolis\\b|\\bvillage\\b|\\bcolony\\b", true)));
    private static final List<String> TYPE_KINDS = List.of("settlement", "island", "river", "mountain", "region", "port");

    static final double SAME_PLACE_KM = 10.0;
    static final double FAR_KM = 500.0;
    static final int SHORT_NAME = 4;
    static final int DESCRIBED = 200;
    static final Set<String> AREA_KINDS = Lexicon.words("place_area_kinds");

    record Point(double lat, double lon) implements Comparable<Point> {
        @Override
        public int compareTo(Point o) {
            int c = Double.compare(lat, o.lat);
            return c != 0 ? c : Double.compare(lon, o.lon);
        }
    }

    /** What the decision knows about one record (disambiguation.Profile). */
    record Profile(String kind, double quality, Point point, Set<String> titles, boolean modern, String about) {}

    static final Profile NO_PROFILE = new Profile(null, 0.0, null, Set.of(), false, "");

    /** A place's profile from what the gazetteer says of it (disambiguation.profile). */
    static Profile profile(String title, String description, String source, List<String> placeTypes, Double lat,
            Double lon, int names) {
        title = title == null ? "" : title;
        description = description == null ? "" : description;
        List<String> types = new ArrayList<>();
        for (String t : placeTypes) {
            types.add(t.toLowerCase(java.util.Locale.ROOT));
        }
        Point point = lat != null && lon != null ? new Point(lat, lon) : null;
        boolean modern = "geonames".equals(source) && (types.contains("country") || types.contains("continent"));
        String kind = null;
        if (modern) {
            kind = types.contains("continent") ? "continent" : "country";
        } else {
            List<String> brackets = new ArrayList<>();
            Matcher m = BRACKET.matcher(title);
            while (m.find()) {
                brackets.add(m.group(1));
            }
            String bracket = String.join(" ", brackets);
            String head = PyText.head(SENTENCE.split(description, 2)[0], 160);
            for (KindPattern k : KIND_PATTERNS) {
                if (k.pattern().matcher(bracket).find()) {
                    kind = k.kind();
                    break;
                }
            }
            if (kind == null) {
                kind = firstKind(head);
            }
            if (kind == null) {
                for (String t : types) {
                    if (TYPE_KINDS.contains(t)) {
                        kind = t;
                        break;
                    }
                }
            }
        }
        double quality;
        if (WITHDRAWN.matcher(title).find() || WITHDRAWN.matcher(PyText.head(description, 60)).find()) {
            quality = -2.0;
        } else if (STUB.matcher(description).find()) {
            quality = 0.0;
        } else if (description.isEmpty() && !modern) {
            quality = 0.5;
        } else {
            quality = 1.0 + Math.min(0.5, 0.1 * Math.max(0, names - 1));
        }
        if (point == null) {
            quality -= 0.4;
        }
        TreeSet<String> titles = new TreeSet<>(PyText.ORDER);
        for (String part : TITLE_PARTS.matcher(title).replaceAll(" ").split("/", -1)) {
            if (!PyText.strip(part).isEmpty()) {
                titles.add(PyText.strip(TextFunctions.foldText(part), " ?*"));
            }
        }
        String about = TextFunctions.foldText(title + " " + PyText.head(description, DESCRIBED));
        return new Profile(kind, quality, point, titles, modern, about);
    }

    private static String firstKind(String text) {
        String best = null;
        int bestAt = Integer.MAX_VALUE;
        for (KindPattern k : KIND_PATTERNS) { // in rank order: an earlier rank wins a tie
            Matcher m = k.pattern().matcher(text);
            if (m.find() && m.start() < bestAt) {
                bestAt = m.start();
                best = k.kind();
            }
        }
        return best;
    }

    /** A decision: the record meant, how sure, the evidence that decided, the candidates best first. */
    record Decision(String target, double confidence, String rule, List<String> candidates) {}

    static double distanceKm(Point a, Point b) {
        double lat1 = Math.toRadians(a.lat);
        double lon1 = Math.toRadians(a.lon);
        double lat2 = Math.toRadians(b.lat);
        double lon2 = Math.toRadians(b.lon);
        double s1 = Math.sin((lat2 - lat1) / 2);
        double s2 = Math.sin((lon2 - lon1) / 2);
        double h = s1 * s1 + Math.cos(lat1) * Math.cos(lat2) * s2 * s2;
        return 2 * 6371.0 * Math.asin(Math.min(1.0, Math.sqrt(h)));
    }

    private static double sigmoid(double x) {
        return 1.0 / (1.0 + Math.exp(-x));
    }

    /** Python's round(x, 3): the exact binary value, to the nearest (ties to even). */
    static double round3(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return x;
        }
        return new BigDecimal(x).setScale(3, RoundingMode.HALF_EVEN).doubleValue();
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2.0);
    }

    /** disambiguation.decide: the record `key` means among its candidates. */
    static Decision decide(String key, List<String> candidates, Function<String, Profile> profiles, Set<String> cues,
            Set<String> exonyms, Set<String> known, Function<String, Double> distance, Set<String> qualifiers,
            String sense) {
        Map<String, Double> scores = new LinkedHashMap<>();
        Map<String, LinkedHashMap<String, Double>> parts = new LinkedHashMap<>();
        Map<String, Double> distances = new LinkedHashMap<>();
        Map<String, Profile> profs = new LinkedHashMap<>();
        for (String target : candidates) {
            Profile p = profiles.apply(target);
            profs.put(target, p == null ? NO_PROFILE : p);
        }
        if (candidates.size() > 1 && distance != null) {
            for (String target : candidates) {
                Profile prof = profs.get(target);
                if (prof.point() != null && (prof.kind() == null || !AREA_KINDS.contains(prof.kind()))) {
                    Double found = distance.apply(target);
                    if (found != null) {
                        distances.put(target, found);
                    }
                }
            }
        }
        Double nearest = null;
        if (distances.size() > 1) {
            double min = Double.POSITIVE_INFINITY;
            for (double d : distances.values()) {
                min = Math.min(min, d);
            }
            nearest = min;
        }
        boolean ancientExonym = false;
        for (String t : candidates) {
            ancientExonym |= exonyms.contains(t);
        }
        boolean ancientTitle = false;
        for (Profile p : profs.values()) {
            ancientTitle |= !p.modern() && p.quality() >= 1.0 && p.titles().contains(key);
        }
        for (String target : candidates) {
            Profile prof = profs.get(target);
            LinkedHashMap<String, Double> part = new LinkedHashMap<>();
            double record = prof.quality();
            if (prof.titles().contains(key) || prof.quality() < 1.0 && key.contains(" ")) {
                record += 0.5;
            }
            if (PyText.length(key) <= SHORT_NAME && prof.quality() < 1.0) {
                record -= 0.5;
            }
            part.put("record", record);
            if (exonyms.contains(target)) {
                part.put("exonym", 0.5);
            }
            if (prof.kind() != null && cues.contains(prof.kind())) {
                part.put("kind-cue", 1.5);
            }
            if (prof.modern()) {
                part.put("modern-name", cues.contains("modern") ? 1.5
                        : cues.contains("ancient") || cues.contains("province") ? -1.5
                        : ancientExonym || ancientTitle ? 0.0 : 1.2);
            }
            if (!qualifiers.isEmpty()) {
                boolean says = false;
                for (String q : qualifiers) {
                    says |= prof.about().contains(q);
                }
                part.put("qualifier", says ? 1.5 : -3.0);
            }
            if (target.equals(sense)) {
                part.put("document-sense", 1.5);
            }
            if (candidates.size() > 1 && known.contains(target)) {
                part.put("context-document", 1.0);
            }
            if (nearest != null && distances.containsKey(target)) {
                part.put("context-nearest", -Math.min(2.0, log2((distances.get(target) + 50) / (nearest + 50))));
            }
            if (candidates.size() == 1 && prof.quality() < 1.0 && distance != null && prof.point() != null) {
                Double far = distance.apply(target);
                if (far != null && far > FAR_KM) {
                    part.put("context-far", -1.0);
                }
            }
            parts.put(target, part);
            double sum = 0.0;
            for (double v : part.values()) {
                sum += v;
            }
            scores.put(target, sum);
        }
        List<String> ranked = new ArrayList<>(candidates);
        ranked.sort((a, b) -> {
            double x = scores.get(a);
            double y = scores.get(b);
            return x > y ? -1 : x < y ? 1 : PyText.ORDER.compare(a, b); // -0.0 == 0.0, as in Python
        });
        String best = ranked.get(0);
        double alone = sigmoid(2 * scores.get(best) - 0.5);
        if (ranked.size() == 1) {
            Map<String, Double> p = parts.get(best);
            String rule = p.getOrDefault("qualifier", 0.0) > 0 ? "qualifier"
                    : p.containsKey("exonym") ? "exonym" : "unique-name";
            return new Decision(best, round3(alone), rule, ranked);
        }
        Point point = profs.get(best).point();
        double same = 0.0;
        double total = 0.0;
        for (String t : ranked) {
            double w = Math.exp(2 * (scores.get(t) - scores.get(best)));
            total += w;
            Point other = profs.get(t).point();
            if (t.equals(best) || point != null && other != null && distanceKm(point, other) <= SAME_PLACE_KM
                    || sameArea(profs.get(best), profs.get(t))) {
                same += w;
            }
        }
        double confidence = same / total * alone;
        Map<String, Double> runner = parts.get(ranked.get(1));
        TreeSet<String> names = new TreeSet<>(PyText.ORDER);
        names.addAll(parts.get(best).keySet());
        String rule = null;
        double top = Double.NEGATIVE_INFINITY;
        for (String name : names) {
            double margin = parts.get(best).get(name) - runner.getOrDefault(name, 0.0);
            if (rule == null || margin > top) {
                rule = name;
                top = margin;
            }
        }
        return new Decision(best, round3(confidence), rule, ranked);
    }

    /** disambiguation.same_area: two ancient areas of one title (a region and its provinces). */
    static boolean sameArea(Profile a, Profile b) {
        if (a.modern() || b.modern() || a.kind() == null || !AREA_KINDS.contains(a.kind()) || b.kind() == null
                || !AREA_KINDS.contains(b.kind())) {
            return false;
        }
        for (String title : a.titles()) {
            if (b.titles().contains(title)) {
                return true;
            }
        }
        return false;
    }

    /** A set of the distinct points, sorted. */
    static List<Point> distinct(Collection<Point> points) {
        return new ArrayList<>(new TreeSet<>(points));
    }
}
