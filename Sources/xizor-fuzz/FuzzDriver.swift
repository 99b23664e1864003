#if FUZZING
    #if canImport(Glibc)
        import Glibc
    #endif
    import CFuzz
    import XizorFuzzing

    /// Hands control to libFuzzer's driver with the chosen target. The callback is a C function
    /// pointer and cannot capture, so the target sits in a static set once before the driver starts.
    enum FuzzDriver {
        nonisolated(unsafe) static var target: FuzzTarget = .json

        static func run(_ chosen: FuzzTarget, libFuzzerArguments: [String]) -> Never {
            target = chosen
            // libFuzzer reads its own argv: the program name, then flags and corpus directories.
            var cArguments: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments[0]] + libFuzzerArguments).map {
                strdup($0)
            }
            cArguments.append(nil)
            var argc = Int32(cArguments.count - 1)
            let status = cArguments.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
                return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    let input = UnsafeRawBufferPointer(start: data, count: size)
                    do { try FuzzDriver.target.run(input) } catch {
                        FileHandleStderr.write("FINDING \(error)\n")
                        abort()  // libFuzzer saves the input as crash-<sha1> and stops
                    }
                    return 0
                }
            }
            exit(status)
        }
    }
#endif
