import XizorCLI

// Thin entry point: everything lives in XizorCLI so it can be tested.
CommandLineInterface.main()
