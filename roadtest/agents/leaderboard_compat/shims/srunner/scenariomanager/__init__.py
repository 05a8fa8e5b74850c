"""Stand-in srunner.scenariomanager: carla_data_provider and timer only."""
