import PaywallFormat

#if canImport(Glibc)
    import Glibc
#endif

/// Measures validations, canonical serializations and parses per second of the `cinematic` template.
enum FormatBench {
    static func main(_ arguments: [String]) throws -> Int32 {
        switch arguments.first {
        case "template":
            guard arguments.count == 2, let doc = try PaywallTemplates.document(named: arguments[1]) else {
                return usage()
            }
            print(doc.canonicalString)
            return 0
        case "schema":
            guard arguments.count == 2, let v = Int(arguments[1]), let schema = JSONSchemaGenerator.schema(version: v)
            else { return usage() }
            print(schema.canonicalString)
            return 0
        case "loop":
            // For profilers: one operation, N times.
            guard arguments.count == 3, let n = Int(arguments[2]),
                let doc = try PaywallTemplates.document(named: "cinematic")
            else { return usage() }
            var sink = 0
            for _ in 0..<n {
                switch arguments[1] {
                case "validate": sink &+= PaywallValidator.validate(doc).errors.count
                case "serialize": sink &+= doc.canonicalBytes.count
                case "parse": sink &+= (try? JSONParser().parse(doc.canonicalBytes)) == nil ? 0 : 1
                default: return usage()
                }
            }
            print(sink)
            return 0
        case "run":
            let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 2 : 2
            return try run(seconds: seconds)
        default:
            return usage()
        }
    }

    static func usage() -> Int32 {
        print("usage: xizor-format-bench template NAME | schema N | run [SECONDS] | loop validate|serialize|parse N")
        return 64
    }

    /// Runs `body` repeatedly for about `seconds` and answers operations per second.
    static func measure(_ seconds: Double, _ body: () -> Int) -> Double {
        let clock = ContinuousClock()
        var sink = 0
        for _ in 0..<50 { sink &+= body() }  // warm up
        var count = 0
        let start = clock.now
        let limit = Duration.milliseconds(Int64(seconds * 1000))
        while clock.now - start < limit {
            for _ in 0..<20 { sink &+= body() }
            count += 20
        }
        let elapsed = clock.now - start
        let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if sink == 42 { print("") }  // keep the work observable
        return Double(count) / secs
    }

    static func run(seconds: Double) throws -> Int32 {
        guard let doc = try PaywallTemplates.document(named: "cinematic") else { return 1 }
        let bytes = doc.canonicalBytes
        let validations = measure(seconds) { PaywallValidator.validate(doc).errors.count + 1 }
        let serializations = measure(seconds) { doc.canonicalBytes.count }
        let parses = measure(seconds) { (try? JSONParser().parse(bytes)) == nil ? 0 : 1 }
        let parseAndValidate = measure(seconds) {
            guard let value = try? JSONParser().parse(bytes) else { return 0 }
            return PaywallValidator.validate(value).errors.count + 1
        }
        let reads = measure(seconds) { PaywallReader.read(doc).unknownNodes.count + 1 }
        let result: JSONValue = [
            "document": "cinematic",
            "documentBytes": .number(bytes.count),
            "validationsPerSecond": .number(validations.rounded()),
            "canonicalSerializationsPerSecond": .number(serializations.rounded()),
            "parsesPerSecond": .number(parses.rounded()),
            "parseAndValidatePerSecond": .number(parseAndValidate.rounded()),
            "tolerantReadsPerSecond": .number(reads.rounded()),
        ]
        print(result.canonicalString)
        return 0
    }
}
