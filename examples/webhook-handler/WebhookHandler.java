// An institution's authorization webhook, written from docs/webhook-protocol.md alone, in Java
// with the JDK only (com.sun.net.httpserver, javax.crypto). One file, no build tool:
//
//     javac -d out WebhookHandler.java
//     WEBHOOK_SECRET=... java -cp out WebhookHandler [PORT] [cardctl|standard-webhooks]
//
// PORT 0 (the default) takes a free port. The secrets come from the environment, never from the
// command line: WEBHOOK_SECRET, and during a rotation WEBHOOK_PREVIOUS_SECRET, accepted until
// WEBHOOK_PREVIOUS_SECRET_UNTIL (Unix seconds). The first line on stdout is
// `listening http://127.0.0.1:PORT/hook`.
//
// It keeps an available balance per card (WEBHOOK_BALANCE minor units, default 500000): an
// authorization or a purchase within it is approved (00) and held or taken, a larger one declined
// (51); an increment raises a hold within it; a reversal, a timeout reversal or a refund gives the
// money back; a completion captures. Advices are booked as the network decided and acknowledged.
// A repeat or a duplicate delivery is answered exactly as the first time, with the ISO response
// MTI. A request whose signature is missing, wrong or more than 300 s from now is answered 401.
//
// WEBHOOK_VARIANT breaks it on purpose, one way at a time (the tests of `cardctl webhook certify`
// prove each is caught): keep-hold (a reversal or refund never gives the money back),
// echo-secrets (replies echo fields 14, 35, 36, 45, 52, 55), retired-forever (the previous secret
// is accepted after its window), one-signature (a header with two signatures is refused),
// decline-all (every authorization and purchase declined), garbage-1-in-10 (one reply in ten is
// not JSON), http-500 (500 to everything).
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class WebhookHandler {
  static final long TOLERANCE_SECONDS = 300;
  static final Set<String> NOT_ECHOED = Set.of("14", "35", "36", "45", "52", "55");
  static final Set<String> APPROVED = Set.of("00", "08", "10", "11", "16", "32");

  final String scheme;
  final String variant;
  final String secret;
  final String previousSecret;
  final long previousUntil;
  final long balance;

  /** First answers by STAN|RRN|class: a repeat or a duplicate gets the same. */
  final Map<String, Map<String, String>> answers = new HashMap<>();
  /** Money held (an authorization) or taken (a purchase) by STAN|field 7 of the original: what field 90 names. */
  final Map<String, Long> held = new HashMap<>();
  /** Available balance per card number. */
  final Map<String, Long> available = new HashMap<>();
  final AtomicLong approvals = new AtomicLong();
  final AtomicLong replies = new AtomicLong();

  WebhookHandler(String scheme, String variant, String secret, String previousSecret, long previousUntil, long balance) {
    this.scheme = scheme;
    this.variant = variant;
    this.secret = secret;
    this.previousSecret = previousSecret;
    this.previousUntil = previousUntil;
    this.balance = balance;
  }

  public static void main(String[] args) throws IOException {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    String scheme = args.length > 1 ? args[1] : "cardctl";
    if (!scheme.equals("cardctl") && !scheme.equals("standard-webhooks")) throw new IllegalArgumentException("unknown scheme " + scheme);
    String secret = env("WEBHOOK_SECRET", "");
    if (secret.isEmpty()) {
      System.err.println("WEBHOOK_SECRET is not set");
      System.exit(2);
    }
    String until = env("WEBHOOK_PREVIOUS_SECRET_UNTIL", "");
    WebhookHandler handler = new WebhookHandler(scheme, env("WEBHOOK_VARIANT", "none"), secret, env("WEBHOOK_PREVIOUS_SECRET", ""),
        until.isEmpty() ? Long.MAX_VALUE : Long.parseLong(until), Long.parseLong(env("WEBHOOK_BALANCE", "500000")));
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
    server.createContext("/hook", handler::serve);
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.start();
    System.out.println("listening http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    System.out.flush();
  }

  static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null ? fallback : value.trim();
  }

  // ---------- HTTP ----------

  void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = readAll(exchange.getRequestBody());
      if (variant.equals("http-500")) {
        send(exchange, 500, "text/plain", "broken on purpose\n");
        return;
      }
      if (!exchange.getRequestMethod().equals("POST")) {
        send(exchange, 405, "text/plain", "POST only\n");
        return;
      }
      String problem = verify(exchange, body);
      if (problem != null) {
        send(exchange, 401, "application/json", "{\"error\":" + quote(problem) + "}");
        return;
      }
      Map<String, String> message;
      try {
        message = parseObject(new String(body, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        send(exchange, 400, "application/json", "{\"error\":\"not a JSON object\"}");
        return;
      }
      String mti = message.getOrDefault("0", "");
      if (!mti.matches("\\d{4}")) {
        send(exchange, 400, "application/json", "{\"error\":\"no MTI\"}");
        return;
      }
      Map<String, String> reply = answer(message);
      if (variant.equals("garbage-1-in-10") && replies.incrementAndGet() % 10 == 0) {
        send(exchange, 200, "application/json", "<html>oops</html>");
        return;
      }
      send(exchange, 200, "application/json", toJson(reply));
    }
  }

  static byte[] readAll(InputStream in) throws IOException {
    return in.readAllBytes();
  }

  static void send(HttpExchange exchange, int status, String type, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  // ---------- signatures ----------

  /** The secrets a request may be signed with now: the current one, and the previous one within its window. */
  List<String> acceptedSecrets() {
    List<String> secrets = new ArrayList<>(List.of(secret));
    boolean open = System.currentTimeMillis() / 1000 < previousUntil || variant.equals("retired-forever");
    if (!previousSecret.isEmpty() && open) secrets.add(previousSecret);
    return secrets;
  }

  /** Why the request's signature does not hold, or null. Over the exact bytes received. */
  String verify(HttpExchange exchange, byte[] body) {
    long now = System.currentTimeMillis() / 1000;
    if (scheme.equals("cardctl")) {
      String header = exchange.getRequestHeaders().getFirst("X-Webhook-Signature");
      if (header == null) return "no X-Webhook-Signature";
      String t = null;
      List<String> given = new ArrayList<>();
      for (String part : header.split(",")) {
        int eq = part.indexOf('=');
        if (eq < 0) continue;
        String key = part.substring(0, eq).trim();
        String value = part.substring(eq + 1).trim();
        if (key.equals("t")) t = value;
        else if (key.equals("v1")) given.add(value);
      }
      if (variant.equals("one-signature") && given.size() != 1) return "expected one v1 signature";
      if (t == null || !t.matches("\\d{1,12}") || Math.abs(now - Long.parseLong(t)) > TOLERANCE_SECONDS) return "missing or stale t";
      byte[] message = concat((t + ".").getBytes(StandardCharsets.US_ASCII), body);
      for (String key : acceptedSecrets()) {
        String expected = hex(hmac(key.getBytes(StandardCharsets.UTF_8), message));
        for (String candidate : given) if (sameBytes(expected, candidate)) return null;
      }
      return "signature does not match";
    }
    String id = exchange.getRequestHeaders().getFirst("webhook-id");
    String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
    String signatures = exchange.getRequestHeaders().getFirst("webhook-signature");
    if (id == null || timestamp == null || signatures == null) return "missing webhook-* headers";
    if (!timestamp.matches("\\d{1,12}") || Math.abs(now - Long.parseLong(timestamp)) > TOLERANCE_SECONDS) return "stale timestamp";
    List<String> given = new ArrayList<>();
    for (String entry : signatures.split(" ")) if (entry.startsWith("v1,")) given.add(entry.substring(3));
    if (variant.equals("one-signature") && given.size() != 1) return "expected one v1 signature";
    byte[] message = concat((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
    for (String key : acceptedSecrets()) {
      if (!key.startsWith("whsec_")) continue;
      String expected = Base64.getEncoder().encodeToString(hmac(Base64.getDecoder().decode(key.substring(6)), message));
      for (String candidate : given) if (sameBytes(expected, candidate)) return null;
    }
    return "signature does not match";
  }

  static byte[] hmac(byte[] key, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean sameBytes(String expected, String given) {
    return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) out.append(String.format("%02x", b));
    return out.toString();
  }

  // ---------- messages ----------

  /** The MTI with its last digit made even: 0100 and its repeat 0101 are one class. */
  static String classOf(String mti) {
    int last = mti.charAt(3) - '0';
    return mti.substring(0, 3) + (last - last % 2);
  }

  static long amountOf(Map<String, String> message) {
    String text = message.getOrDefault("4", "0");
    return text.matches("\\d{1,12}") ? Long.parseLong(text) : 0;
  }

  /** STAN|field 7 of the original named by field 90 (MTI 4, STAN 6, field 7 10), or null. */
  static String originalKey(Map<String, String> message) {
    String original = message.get("90");
    return original != null && original.length() >= 20 ? original.substring(4, 10) + "|" + original.substring(10, 20) : null;
  }

  synchronized Map<String, String> answer(Map<String, String> message) {
    String mti = message.get("0");
    String cls = classOf(mti);
    String key = message.getOrDefault("11", "") + "|" + message.getOrDefault("37", "") + "|" + cls;
    Map<String, String> first = answers.get(key);
    if (first == null) {
      first = decide(message, cls);
      answers.put(key, first);
    }
    Map<String, String> reply = new LinkedHashMap<>();
    for (Map.Entry<String, String> field : message.entrySet()) {
      if (!NOT_ECHOED.contains(field.getKey()) || variant.equals("echo-secrets")) reply.put(field.getKey(), field.getValue());
    }
    reply.putAll(first);
    // The response MTI of the class: third digit plus one (0100 -> 0110, 0421 -> 0430).
    reply.put("0", cls.substring(0, 2) + (char) (cls.charAt(2) + 1) + cls.charAt(3));
    return reply;
  }

  /** The first answer's own fields (39, and 38 when approved) to a message of class `cls`. */
  Map<String, String> decide(Map<String, String> message, String cls) {
    String pan = message.getOrDefault("2", "");
    long amount = amountOf(message);
    String own = message.getOrDefault("11", "") + "|" + message.getOrDefault("7", "");
    String original = originalKey(message);
    long left = available.getOrDefault(pan, balance);
    String code;
    switch (cls) {
      case "0120": { // an advice: the network decided; an approved one holds (once, whichever came first)
        code = message.getOrDefault("39", "00");
        if (APPROVED.contains(code) && !held.containsKey(own)) {
          held.put(own, amount);
          available.put(pan, left - amount);
        }
        break;
      }
      case "0220": { // a completion: capture the final amount, release the rest of the hold
        code = message.getOrDefault("39", "00");
        if (original != null && held.containsKey(original)) {
          available.put(pan, left + held.remove(original) - amount);
        }
        break;
      }
      case "0420": { // a reversal (a timeout reversal names its request itself): give back what it reverses
        code = "00";
        String target = original != null ? original : own;
        Long hold = held.get(target);
        if (hold != null && !variant.equals("keep-hold")) {
          long back = Math.min(hold, amount);
          held.put(target, hold - back);
          available.put(pan, left + back);
        }
        break;
      }
      default: {
        String processing = message.getOrDefault("3", "000000");
        if (variant.equals("decline-all")) code = "05";
        else if (processing.startsWith("31")) code = "00"; // a balance inquiry moves no money
        else if (processing.startsWith("20")) { // a refund of a purchase
          code = "00";
          Long taken = original == null ? null : held.get(original);
          if (taken != null && !variant.equals("keep-hold")) {
            long back = Math.min(taken, amount);
            held.put(original, taken - back);
            available.put(pan, left + back);
          }
        } else if (amount > left) code = "51";
        else {
          code = "00";
          available.put(pan, left - amount);
          // An increment grows its original's hold; anything else holds (or takes) under its own key.
          String target = cls.equals("0100") && original != null && held.containsKey(original) ? original : own;
          held.merge(target, amount, Long::sum);
        }
      }
    }
    Map<String, String> first = new LinkedHashMap<>();
    first.put("39", code);
    if (APPROVED.contains(code) && (cls.equals("0100") || cls.equals("0200"))) first.put("38", String.format("%06d", approvals.incrementAndGet() % 1_000_000));
    return first;
  }

  // ---------- JSON: a flat object of strings (numbers read as text) ----------

  static Map<String, String> parseObject(String text) {
    int[] at = {skip(text, 0)};
    Map<String, String> out = new LinkedHashMap<>();
    expect(text, at, '{');
    at[0] = skip(text, at[0]);
    if (peek(text, at) == '}') return out;
    while (true) {
      at[0] = skip(text, at[0]);
      String key = parseString(text, at);
      at[0] = skip(text, at[0]);
      expect(text, at, ':');
      at[0] = skip(text, at[0]);
      String value;
      if (peek(text, at) == '"') value = parseString(text, at);
      else {
        int start = at[0];
        while (at[0] < text.length() && "+-0123456789.eE".indexOf(text.charAt(at[0])) >= 0) at[0]++;
        if (start == at[0]) throw new IllegalArgumentException("a value that is neither a string nor a number");
        value = text.substring(start, at[0]);
      }
      out.put(key, value);
      at[0] = skip(text, at[0]);
      char next = peek(text, at);
      at[0]++;
      if (next == '}') return out;
      if (next != ',') throw new IllegalArgumentException("expected , or }");
    }
  }

  static int skip(String text, int at) {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    return at;
  }

  static char peek(String text, int[] at) {
    if (at[0] >= text.length()) throw new IllegalArgumentException("unexpected end");
    return text.charAt(at[0]);
  }

  static void expect(String text, int[] at, char c) {
    if (peek(text, at) != c) throw new IllegalArgumentException("expected " + c);
    at[0]++;
  }

  static String parseString(String text, int[] at) {
    expect(text, at, '"');
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = peek(text, at);
      at[0]++;
      if (c == '"') return out.toString();
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = peek(text, at);
      at[0]++;
      switch (e) {
        case 'n': out.append('\n'); break;
        case 't': out.append('\t'); break;
        case 'r': out.append('\r'); break;
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'u':
          out.append((char) Integer.parseInt(text.substring(at[0], at[0] + 4), 16));
          at[0] += 4;
          break;
        default: out.append(e);
      }
    }
  }

  static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  static String toJson(Map<String, String> fields) {
    StringBuilder out = new StringBuilder("{");
    for (Map.Entry<String, String> field : fields.entrySet()) {
      if (out.length() > 1) out.append(',');
      out.append(quote(field.getKey())).append(':').append(quote(field.getValue()));
    }
    return out.append('}').toString();
  }
}
